"""The release-facts refresh tool's parsers, on small synthetic fixtures (no network)."""

import io
import json
import struct
import zipfile

import pytest
from packaging.version import Version

from mps_doctor.data import refresh

METHNAME, SELREFS, TEXT = 0x2000, 0x3000, 0x1000
GATE_14 = b"HermiteanToRealFFTWithTensor:axes:descriptor:name:"
GATE_13 = b"cumulativeSumWithTensor:axis:name:"


def adrp(pc, target, register):
    pages = ((target & ~0xFFF) - (pc & ~0xFFF)) >> 12
    return 0x90000000 | (pages & 3) << 29 | ((pages >> 2) & 0x7FFFF) << 5 | register


def ldr(slot, base, register):
    return 0xF9400000 | ((slot & 0xFFF) // 8) << 10 | base << 5 | register


def macho(minos=(14, 0, 0), loads=(), strings=(GATE_13, GATE_14), version_min=False, message=b"14.0"):
    """A tiny arm64 Mach-O: a build-version (or version-min) command, __text with the given selector loads
    (selector index, destination register), __objc_methname with STRINGS, __objc_selrefs pointing at them."""
    packed = minos[0] << 16 | minos[1] << 8 | minos[2]
    version_cmd = (struct.pack("<IIII", 0x24, 16, packed, packed) if version_min
                   else struct.pack("<IIIIII", 0x32, 24, 1, packed, packed, 0))
    sections = [(b"__text", b"__TEXT", TEXT, 0x100), (b"__objc_methname", b"__TEXT", METHNAME, 0x400),
                (b"__objc_selrefs", b"__DATA", SELREFS, 0x100)]
    segment = struct.pack("<II16sQQQQiiII", 0x19, 72 + 80 * len(sections), b"__TEXT", 0, 0x4000, 0, 0x4000, 5, 5,
                          len(sections), 0)
    for name, seg, addr, size in sections:
        segment += struct.pack("<16s16sQQIIIIIIII", name, seg, addr, size, addr, 0, 0, 0, 0, 0, 0, 0)
    commands = version_cmd + segment
    data = bytearray(0x4000)
    data[0:32] = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 0, 6, 2, len(commands), 0, 0)
    data[32:32 + len(commands)] = commands
    names = b"\0" + b"\0".join(strings) + b"\0"
    data[METHNAME:METHNAME + len(names)] = names
    offsets = [METHNAME + 1 + sum(len(s) + 1 for s in strings[:i]) for i in range(len(strings))]
    for index, target in enumerate(offsets):
        # A chained-fixup rebase: target in the low 36 bits, other fields above.
        struct.pack_into("<Q", data, SELREFS + 8 * index, target | (5 << 51))
    pc = TEXT
    for selector_index, register in loads:
        slot = SELREFS + 8 * selector_index
        struct.pack_into("<II", data, pc, adrp(pc, slot, 8), ldr(slot, 8, register))
        pc += 8
    text = b"The MPS backend is supported on MacOS " + message + b"+."
    data[0x3800:0x3800 + len(text)] = text
    return bytes(data)


def test_minimum_os_from_build_version_and_version_min():
    assert refresh.parse_macho(macho(minos=(11, 0, 0))).minimum_os == (11, 0, 0)
    assert refresh.parse_macho(macho(minos=(14, 2, 1), version_min=True)).minimum_os == (14, 2, 1)


def test_fat_file_uses_the_arm64_slice_and_rejects_other_data():
    thin = macho(minos=(13, 0, 0))
    fat = struct.pack(">II", 0xCAFEBABE, 2) + struct.pack(">iiIII", 0x01000007, 3, 0x8000, 16, 12)
    fat += struct.pack(">iiIII", 0x0100000C, 0, 0x10000, len(thin), 14)
    fat = fat.ljust(0x10000, b"\0") + thin
    assert refresh.parse_macho(fat).minimum_os == (13, 0, 0)
    with pytest.raises(ValueError):
        refresh.parse_macho(b"\x7fELF" + b"\0" * 60)


def test_gate_is_a_selector_loaded_as_a_value_not_a_message_send():
    gated = refresh.mps_binary_facts(macho(loads=[(1, 2)], message=b"14.0"))
    assert (gated.gate, gated.message) == ((GATE_14.decode(), "14.0"), "14.0")
    # A send without selector stubs loads the selector into x1: that is an op using it, not a probe.
    sends = refresh.mps_binary_facts(macho(loads=[(1, 1)]))
    assert sends.gate is None and GATE_14.decode() in sends.selectors_present
    none = refresh.mps_binary_facts(macho(loads=(), message=b"15.0"))
    assert none.gate is None and none.message == "15.0" and none.minimum_os == "14.0"


def test_the_oldest_probed_selector_is_the_gate_newer_ones_are_feature_checks():
    both = refresh.mps_binary_facts(macho(loads=[(1, 2), (0, 2)], message=b"13.0"))
    assert both.probed == ((GATE_13.decode(), "13.0"), (GATE_14.decode(), "14.0"))
    assert both.gate == (GATE_13.decode(), "13.0")


def test_adrp_decodes_negative_and_positive_pages():
    assert refresh.adrp_page(adrp(0x5000, 0x3008, 1), 0x5000) == 0x3000
    assert refresh.adrp_page(adrp(0x1000, 0x7FF000, 1), 0x1000) == 0x7FF000
    assert refresh.adrp_page(0xF9400000, 0x1000) is None


class FakeServer:
    """Serves one byte string; answers Range requests with 206 unless told to ignore them."""

    def __init__(self, body, ranges=True):
        self.body, self.ranges, self.requests = body, ranges, []

    def __call__(self, request):
        self.requests.append(request.get_header("Range"))
        header = request.get_header("Range")
        if header and self.ranges:
            first, last = (int(x) for x in header.split("=")[1].split("-"))
            return Response(206, self.body[first:last + 1])
        return Response(200, self.body)


class Response(io.BytesIO):
    def __init__(self, status, body):
        super().__init__(body)
        self.status = status


def wheel_bytes(members, padding=3 << 20):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("torch/padding.bin", bytes(range(256)) * (padding // 256))
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_range_reader_reads_one_member_without_the_whole_file():
    body = wheel_bytes({"torch/version.py": "__version__ = '2.14.1'\ncuda: Optional[str] = '13.0'\n"})
    server = FakeServer(body)
    archive, remote = refresh.open_remote_zip("https://files.example/torch.whl", len(body), server)
    assert refresh.version_py_cuda(archive.read("torch/version.py").decode()) == "13.0"
    assert remote.fetched < len(body) / 2
    assert all(r and r.startswith("bytes=") for r in server.requests)


def test_range_reader_falls_back_to_one_download_when_ranges_are_refused():
    body = wheel_bytes({"torch/version.py": "cuda = None\n"}, padding=1024)
    server = FakeServer(body, ranges=False)
    archive, remote = refresh.open_remote_zip("https://files.example/torch.whl", len(body), server)
    assert remote is None and server.requests[-1] is None
    assert refresh.version_py_cuda(archive.read("torch/version.py").decode()) is None


CUDA_INIT = '''
PYTORCH_RELEASES_CODE_CC: dict[str, dict[str, set[int]]] = {
    "12.6": {"x86_64": {50, 60, 70, 75, 80, 86, 90}, "aarch64": {80, 90}},
    "13.0": {"x86_64": {75, 80, 86, 90, 100, 120}},
}
'''


def test_releases_code_cc_is_read_without_importing():
    table = refresh.releases_code_cc(CUDA_INIT)
    assert table["12.6"]["x86_64"] == [50, 60, 70, 75, 80, 86, 90]
    assert refresh.releases_code_cc("x = 1\n") is None
    flat = refresh.releases_code_cc('PYTORCH_RELEASES_CODE_CC = {"12.8": {70, 75, 120}}\n')
    assert flat == {"12.8": {"x86_64": [70, 75, 120]}}


def test_torch_requirement_from_metadata():
    metadata = ("Metadata-Version: 2.1\nName: torchvision\nVersion: 0.29.1\nRequires-Dist: numpy\n"
                "Requires-Dist: torch (>=2.14.0)\nRequires-Dist: scipy ; extra == 'scipy'\n")
    assert refresh.torch_requirement(metadata) == ">=2.14.0"
    assert refresh.torch_requirement("Name: x\nRequires-Dist: torch==2.2.2\n") == "==2.2.2"
    assert refresh.torch_requirement("Name: x\nRequires-Dist: numpy\n") is None


def simple_entry(name, requires=">=3.10"):
    return {"filename": name, "url": "https://files.example/" + name, "size": 10, "requires-python": requires,
            "hashes": {}, "yanked": False}


SIMPLE = {"meta": {"api-version": "1.1"}, "name": "torch", "files": [
    *[simple_entry("torch-2.15.0-cp3%d-cp3%d-%s.whl" % (minor, minor, platform), ">=3.11")
      for minor in range(11, 16) for platform in ("macosx_14_0_arm64", "manylinux_2_28_x86_64")],
    simple_entry("torch-2.15.0-cp315-cp315t-macosx_14_0_arm64.whl", ">=3.11"),
    simple_entry("torch-2.15.0-cp310-cp310-manylinux_2_28_x86_64.whl", ">=3.11"),
    simple_entry("torch-2.10.0-cp313-none-macosx_11_0_arm64.whl"),
    simple_entry("torch-2.10.0-2-cp313-none-macosx_11_0_arm64.whl"),
    simple_entry("torch-2.10.0-cp314-cp314-macosx_14_0_arm64.whl"),
    simple_entry("torch-2.10.0-cp313-cp313-manylinux_2_28_x86_64.whl"),
    simple_entry("torch-2.10.0-cp314-cp314-manylinux_2_28_x86_64.whl"),
    simple_entry("torch-2.2.2-cp312-none-macosx_10_9_x86_64.whl", ">=3.8.0"),
    simple_entry("torch-2.2.2-cp312-none-macosx_11_0_arm64.whl", ">=3.8.0"),
    simple_entry("torch-2.2.2-cp312-cp312-manylinux1_x86_64.whl", ">=3.8.0"),
    simple_entry("torch-2.2.2.tar.gz"),
    dict(simple_entry("torch-2.2.1-cp312-none-macosx_11_0_arm64.whl"), yanked="broken"),
]}


def test_simple_json_rows_python_range_install_minimum_and_pairing():
    groups = refresh.group_by_minor(refresh.parse_simple_json(json.loads(json.dumps(SIMPLE))))
    assert set(groups) == {(2, 15), (2, 10), (2, 2)}
    vision = {"0.29.0": "==2.14.0", "0.29.1": ">=2.14.0", "0.25.0": "==2.10.0", "0.17.2": "==2.2.2"}
    row = refresh.derive_index_facts((2, 15), groups[(2, 15)], vision)
    assert (row.python, row.requires_python, row.macos_min_install) == (">=3.11,<3.16", ">=3.11", "14.0")
    assert (row.torchvision, row.torchvision_versions, row.intel_mac_wheels) == ("0.29", ["0.29.1"], False)
    older = refresh.derive_index_facts((2, 10), groups[(2, 10)], vision)
    assert older.macos_min_install == "11.0" and older.install_exceptions == {"3.14": "14.0"}
    assert older.python == ">=3.13,<3.15" and older.torchvision == "0.25"
    intel = refresh.derive_index_facts((2, 2), groups[(2, 2)], vision)
    assert intel.intel_mac_wheels is True and intel.python == ">=3.12,<3.13"


def test_unreadable_pairing_is_reported_not_guessed():
    groups = refresh.group_by_minor(refresh.parse_simple_json(SIMPLE))
    row = refresh.derive_index_facts((2, 15), groups[(2, 15)], {"0.29.0": "==2.14.0"})
    assert row.torchvision is None
    assert any(line.startswith("torchvision:") for line in row.unreadable)
    assert not any(line.startswith("torchvision") for line in refresh.diff_rows(row, {"torchvision": "0.30"}))


def test_diff_names_the_fields_that_differ():
    row = refresh.DerivedRow("2.15", "2.15.0", python=">=3.11,<3.16", torchvision="0.29", macos_min_mps="14.0",
                             releases_code_cc={"13.0": {"x86_64": [75, 80]}})
    lines = refresh.diff_rows(row, {"python": ">=3.10,<3.16", "torchvision": "0.29", "macos_min_mps": None,
                                    "cuda_builds": {"13.0": ["7.5", "8.0"]}})
    assert lines == ['python: table ">=3.10,<3.16", wheels ">=3.11,<3.16"', 'macos_min_mps: table null, wheels "14.0"']
    assert refresh.diff_rows(row, None) == ["no row in the table"]


def test_pick_wheel_prefers_cpython_312_of_the_newest_version():
    wheels = refresh.parse_simple_json(SIMPLE)
    chosen = refresh.pick_wheel([w for w in wheels if w.version.release[:2] == (2, 2)], refresh.is_macos_arm64)
    assert chosen.filename == "torch-2.2.2-cp312-none-macosx_11_0_arm64.whl" and chosen.version == Version("2.2.2")


def test_torchaudio_pairs_through_its_stable_abi_release():
    """torchaudio 2.11.1 requires torch>=2.11 and serves later torch; 2.11.0 names no torch, which pairs nothing."""
    audio = {"2.10.0": "==2.10.0", "2.11.0": None, "2.11.1": ">=2.11"}
    assert refresh.paired_versions(Version("2.13.0"), audio) == [Version("2.11.1")]
    assert refresh.paired_versions(Version("2.10.0"), audio) == [Version("2.10.0")]
    groups = refresh.group_by_minor(refresh.parse_simple_json(SIMPLE))
    row = refresh.derive_index_facts((2, 15), groups[(2, 15)], {"0.29.1": ">=2.14.0"}, audio)
    assert (row.torchaudio, row.torchaudio_versions) == ("2.11", ["2.11.1"])
    assert 'torchaudio: table "2.15", wheels "2.11"' in refresh.diff_rows(row, {"torchaudio": "2.15"})
