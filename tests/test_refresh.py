"""The release-facts refresh tool's (tools/refresh) parsers, on small synthetic fixtures (no network)."""

import ast
import contextlib
import io
import json
import os
import signal
import struct
import zipfile

import pytest
from packaging.tags import parse_tag
from packaging.version import Version

from mps_doctor.versions import FREE_THREADED_PLATFORMS, load_releases
from tools.refresh import __main__ as cli
from tools.refresh import derive, index, macho

METHNAME, SELREFS, TEXT = 0x2000, 0x3000, 0x1000
GATE_14 = b"HermiteanToRealFFTWithTensor:axes:descriptor:name:"
GATE_13 = b"cumulativeSumWithTensor:axis:name:"
PAGE = "https://index.example/simple/torch/"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@contextlib.contextmanager
def deadline(seconds):
    """Fail the test, instead of hanging it, when the block runs past SECONDS (SIGALRM, so Unix only)."""
    if not hasattr(signal, "setitimer"):
        pytest.skip("no SIGALRM on this platform")

    def expire(signum, frame):
        pytest.fail("still running after %s s" % seconds)  # not an OSError: the code under test cannot catch it

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def adrp(pc, target, register):
    pages = ((target & ~0xFFF) - (pc & ~0xFFF)) >> 12
    return 0x90000000 | (pages & 3) << 29 | ((pages >> 2) & 0x7FFFF) << 5 | register


def ldr(slot, base, register):
    return 0xF9400000 | ((slot & 0xFFF) // 8) << 10 | base << 5 | register


def tiny_macho(minos=(14, 0, 0), loads=(), strings=(GATE_13, GATE_14), version_min=False, message=b"14.0"):
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
    for slot, target in enumerate(offsets):
        # A chained-fixup rebase: target in the low 36 bits, other fields above.
        struct.pack_into("<Q", data, SELREFS + 8 * slot, target | (5 << 51))
    pc = TEXT
    for selector_index, register in loads:
        slot = SELREFS + 8 * selector_index
        struct.pack_into("<II", data, pc, adrp(pc, slot, 8), ldr(slot, 8, register))
        pc += 8
    text = b"The MPS backend is supported on MacOS " + message + b"+."
    data[0x3800:0x3800 + len(text)] = text
    return bytes(data)


def test_minimum_os_from_build_version_and_version_min():
    assert macho.parse_macho(tiny_macho(minos=(11, 0, 0))).minimum_os == (11, 0, 0)
    assert macho.parse_macho(tiny_macho(minos=(14, 2, 1), version_min=True)).minimum_os == (14, 2, 1)


def test_fat_file_uses_the_arm64_slice_and_rejects_other_data():
    thin = tiny_macho(minos=(13, 0, 0))
    fat = struct.pack(">II", 0xCAFEBABE, 2) + struct.pack(">iiIII", 0x01000007, 3, 0x8000, 16, 12)
    fat += struct.pack(">iiIII", 0x0100000C, 0, 0x10000, len(thin), 14)
    fat = fat.ljust(0x10000, b"\0") + thin
    assert macho.parse_macho(fat).minimum_os == (13, 0, 0)
    with pytest.raises(ValueError):
        macho.parse_macho(b"\x7fELF" + b"\0" * 60)


def test_gate_is_a_selector_loaded_as_a_value_not_a_message_send():
    gated = macho.mps_binary_facts(tiny_macho(loads=[(1, 2)], message=b"14.0"))
    assert (gated.gate, gated.message) == ((GATE_14.decode(), "14.0"), "14.0")
    # A send without selector stubs loads the selector into x1: that is an op using it, not a probe.
    sends = macho.mps_binary_facts(tiny_macho(loads=[(1, 1)]))
    assert sends.gate is None and GATE_14.decode() in sends.selectors_present
    none = macho.mps_binary_facts(tiny_macho(loads=(), message=b"15.0"))
    assert none.gate is None and none.message == "15.0" and none.minimum_os == "14.0"


def test_the_oldest_probed_selector_is_the_gate_newer_ones_are_feature_checks():
    both = macho.mps_binary_facts(tiny_macho(loads=[(1, 2), (0, 2)], message=b"13.0"))
    assert both.probed == ((GATE_13.decode(), "13.0"), (GATE_14.decode(), "14.0"))
    assert both.gate == (GATE_13.decode(), "13.0")


def test_adrp_decodes_negative_and_positive_pages():
    assert macho.adrp_page(adrp(0x5000, 0x3008, 1), 0x5000) == 0x3000
    assert macho.adrp_page(adrp(0x1000, 0x7FF000, 1), 0x1000) == 0x7FF000
    assert macho.adrp_page(0xF9400000, 0x1000) is None


class FakeServer:
    """Serves one byte string; answers Range requests with 206 unless told to ignore them."""

    def __init__(self, body, ranges=True):
        self.body, self.ranges, self.requests, self.timeouts = body, ranges, [], []

    def __call__(self, request, timeout=None):
        self.requests.append(request.get_header("Range"))
        self.timeouts.append(timeout)
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
    archive, remote = index.open_remote_zip("https://files.example/torch.whl", len(body), server)
    assert derive.version_py_cuda(archive.read("torch/version.py").decode()) == "13.0"
    assert remote.fetched < len(body) / 2
    assert all(r and r.startswith("bytes=") for r in server.requests)


def test_range_reader_falls_back_to_one_download_when_ranges_are_refused():
    body = wheel_bytes({"torch/version.py": "cuda = None\n"}, padding=1024)
    server = FakeServer(body, ranges=False)
    archive, remote = index.open_remote_zip("https://files.example/torch.whl", len(body), server)
    assert remote is None and server.requests[-1] is None
    assert derive.version_py_cuda(archive.read("torch/version.py").decode()) is None


CUDA_INIT = '''
PYTORCH_RELEASES_CODE_CC: dict[str, dict[str, set[int]]] = {
    "12.6": {"x86_64": {50, 60, 70, 75, 80, 86, 90}, "aarch64": {80, 90}},
    "13.0": {"x86_64": {75, 80, 86, 90, 100, 120}},
}
'''


def test_releases_code_cc_is_read_without_importing():
    table = derive.releases_code_cc(CUDA_INIT)
    assert table["12.6"]["x86_64"] == [50, 60, 70, 75, 80, 86, 90]
    assert derive.releases_code_cc("x = 1\n") is None
    flat = derive.releases_code_cc('PYTORCH_RELEASES_CODE_CC = {"12.8": {70, 75, 120}}\n')
    assert flat == {"12.8": {"x86_64": [70, 75, 120]}}


def test_torch_requirement_from_metadata():
    metadata = ("Metadata-Version: 2.1\nName: torchvision\nVersion: 0.29.1\nRequires-Dist: numpy\n"
                "Requires-Dist: torch (>=2.14.0)\nRequires-Dist: scipy ; extra == 'scipy'\n")
    assert derive.torch_requirement(metadata) == ">=2.14.0"
    assert derive.torch_requirement("Name: x\nRequires-Dist: torch==2.2.2\n") == "==2.2.2"
    assert derive.torch_requirement("Name: x\nRequires-Dist: numpy\n") is None


def simple_entry(name, requires=">=3.10"):
    return {"filename": name, "url": "https://files.example/" + name, "size": 10, "requires-python": requires,
            "hashes": {}, "yanked": False}


SIMPLE = {"meta": {"api-version": "1.1"}, "name": "torch", "files": [
    *[simple_entry("torch-2.15.0-cp3%d-cp3%d-%s.whl" % (minor, minor, platform), ">=3.11")
      for minor in range(11, 16) for platform in ("macosx_14_0_arm64", "manylinux_2_28_x86_64")],
    simple_entry("torch-2.15.0-cp315-cp315t-macosx_14_0_arm64.whl", ">=3.11"),
    simple_entry("torch-2.15.0-cp314-cp314t-manylinux_2_28_aarch64.whl", ">=3.11"),
    simple_entry("torch-2.15.0-cp315-cp315t-manylinux_2_28_aarch64.whl", ">=3.11"),
    simple_entry("torch-2.15.0-cp314-cp314t-win_amd64.whl", ">=3.11"),
    simple_entry("torch-2.14.1-cp313-cp313t-manylinux_2_28_x86_64.whl", ">=3.10"),
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
    groups = derive.group_by_minor(index.parse_simple_json(json.loads(json.dumps(SIMPLE)), PAGE))
    assert set(groups) == {(2, 15), (2, 14), (2, 10), (2, 2)}
    vision = {"0.29.0": "==2.14.0", "0.29.1": ">=2.14.0", "0.25.0": "==2.10.0", "0.17.2": "==2.2.2"}
    row = derive.derive_index_facts((2, 15), groups[(2, 15)], vision)
    assert (row.python, row.requires_python, row.macos_min_install) == (">=3.11,<3.16", ">=3.11", "14.0")
    assert (row.torchvision, row.torchvision_versions, row.intel_mac_wheels) == ("0.29", ["0.29.1"], False)
    older = derive.derive_index_facts((2, 10), groups[(2, 10)], vision)
    assert older.macos_min_install == "11.0" and older.install_exceptions == {"3.14": "14.0"}
    assert older.python == ">=3.13,<3.15" and older.torchvision == "0.25"
    intel = derive.derive_index_facts((2, 2), groups[(2, 2)], vision)
    assert intel.intel_mac_wheels is True and intel.python == ">=3.12,<3.13"


def test_unreadable_pairing_is_reported_not_guessed():
    groups = derive.group_by_minor(index.parse_simple_json(SIMPLE, PAGE))
    row = derive.derive_index_facts((2, 15), groups[(2, 15)], {"0.29.0": "==2.14.0"})
    assert row.torchvision is None
    assert any(line.startswith("torchvision:") for line in row.unreadable)
    assert not any(line.startswith("torchvision") for line in derive.diff_rows(row, {"torchvision": "0.30"}))


def test_diff_names_the_fields_that_differ():
    row = derive.DerivedRow("2.15", "2.15.0", python=">=3.11,<3.16", torchvision="0.29", macos_min_mps="14.0",
                             releases_code_cc={"13.0": {"x86_64": [75, 80]}})
    lines = derive.diff_rows(row, {"python": ">=3.10,<3.16", "torchvision": "0.29", "macos_min_mps": None,
                                    "cuda_builds": {"13.0": ["7.5", "8.0"]}})
    assert lines == ['python: table ">=3.10,<3.16", wheels ">=3.11,<3.16"', 'macos_min_mps: table null, wheels "14.0"']
    assert derive.diff_rows(row, None) == ["no row in the table"]


def test_pick_wheel_prefers_cpython_312_of_the_newest_version():
    wheels = index.parse_simple_json(SIMPLE, PAGE)
    chosen = derive.pick_wheel([w for w in wheels if w.version.release[:2] == (2, 2)], derive.is_macos_arm64)
    assert chosen.filename == "torch-2.2.2-cp312-none-macosx_11_0_arm64.whl" and chosen.version == Version("2.2.2")


def test_torchaudio_pairs_through_its_stable_abi_release():
    """torchaudio 2.11.1 requires torch>=2.11 and serves later torch; 2.11.0 names no torch, which pairs nothing."""
    audio = {"2.10.0": "==2.10.0", "2.11.0": None, "2.11.1": ">=2.11"}
    assert derive.paired_versions(Version("2.13.0"), audio) == [Version("2.11.1")]
    assert derive.paired_versions(Version("2.10.0"), audio) == [Version("2.10.0")]
    groups = derive.group_by_minor(index.parse_simple_json(SIMPLE, PAGE))
    row = derive.derive_index_facts((2, 15), groups[(2, 15)], {"0.29.1": ">=2.14.0"}, audio)
    assert (row.torchaudio, row.torchaudio_versions) == ("2.11", ["2.11.1"])
    assert 'torchaudio: table "2.15", wheels "2.11"' in derive.diff_rows(row, {"torchaudio": "2.15"})


# --- Hostile input: every walk and every read is bounded, and what cannot be read is an error, not a hang -------
def bare_macho(ncmds, sizeofcmds, commands=b"", size=0x1000):
    """A 64-bit arm64 Mach-O header claiming NCMDS commands in SIZEOFCMDS bytes, then COMMANDS, in SIZE bytes."""
    data = bytearray(size)
    data[0:32] = struct.pack("<IiiIIIII", 0xFEEDFACF, 0x0100000C, 0, 6, ncmds, sizeofcmds, 0, 0)
    data[32:32 + len(commands)] = commands
    return bytes(data)


def segment(sections, nsects=None):
    """An LC_SEGMENT_64 command with SECTIONS (name, file offset, size, flags); NSECTS overrides their count."""
    command = struct.pack("<II16sQQQQiiII", 0x19, 72 + 80 * len(sections), b"__TEXT", 0, 0x1000, 0, 0x1000, 5, 5,
                          len(sections) if nsects is None else nsects, 0)
    for name, offset, size, flags in sections:
        command += struct.pack("<16s16sQQIIIIIIII", name, b"__TEXT", offset, size, offset, 0, 0, 0, flags, 0, 0, 0)
    return command


MALFORMED_MACHOS = {
    "ncmds 0xFFFFFFFF, cmdsize 0": bare_macho(0xFFFFFFFF, 0x100, struct.pack("<II", 0x99, 0)),
    "cmdsize 0": bare_macho(1, 0x100, struct.pack("<II", 0x99, 0)),
    "cmdsize past sizeofcmds": bare_macho(1, 16, struct.pack("<II", 0x99, 64)),
    "sizeofcmds past the data": bare_macho(1, 0x10000, struct.pack("<II", 0x99, 8)),
    "LC_BUILD_VERSION shorter than build_version_command": bare_macho(1, 8, struct.pack("<II", 0x32, 8)),
    "nsects past cmdsize": bare_macho(1, 72, segment([], nsects=0xFFFFFFFF)),
    "section data past the end": bare_macho(1, 152, segment([(b"__text", 0x800, 0x100000, 0)])),
    "fat, nfat_arch 0xFFFFFFFF, no arm64": struct.pack(">II", 0xCAFEBABE, 0xFFFFFFFF) + b"\0" * 64,
    "fat, arm64 slice past the end": struct.pack(">IIiiIII", 0xCAFEBABE, 1, 0x0100000C, 0, 0x1000, 0x4000, 14),
    "truncated header": b"\xcf\xfa\xed\xfe" + b"\0" * 8,
}


@pytest.mark.parametrize("case", sorted(MALFORMED_MACHOS))
def test_a_malformed_macho_is_a_value_error_never_a_hang(case):
    with deadline(5), pytest.raises(ValueError):
        macho.mps_binary_facts(MALFORMED_MACHOS[case])


def test_load_commands_and_sections_inside_the_bounds_still_parse():
    image = macho.parse_macho(bare_macho(1, 232, segment([(b"__text", 0x800, 0x100, 0), (b"__bss", 0, 1 << 40, 1)])))
    assert image.sections == {"__text": (0x800, 0x100, 0x800)}  # a zerofill section has no bytes in the file
    assert macho.parse_macho(bare_macho(0, 0)).minimum_os is None


def served_wheels(body, *names):
    """The WheelFiles of an index page listing NAMES, each served as BODY."""
    page = {"files": [dict(simple_entry(name), size=len(body)) for name in names]}
    return index.parse_simple_json(page, PAGE)


def test_a_malformed_dylib_in_a_wheel_is_unreadable():
    body = wheel_bytes({"torch/lib/libtorch_cpu.dylib": MALFORMED_MACHOS["ncmds 0xFFFFFFFF, cmdsize 0"]}, padding=1024)
    row = derive.DerivedRow("2.15", "2.15.0")
    with deadline(5):
        derive.read_binary_facts(row, served_wheels(body, "torch-2.15.0-cp312-none-macosx_14_0_arm64.whl"),
                                  FakeServer(body))
    assert row.unreadable[0].startswith("binary: torch-2.15.0-cp312-none-macosx_14_0_arm64.whl: ")
    assert "load commands cannot fit" in row.unreadable[0] and row.dylib_minimum_os is None


class Stream(io.BytesIO):
    """A member's decompressed stream that records how much each read asked for."""

    asked = ()

    def read(self, size=-1):
        self.asked += (size,)
        return super().read(size)


class LyingArchive:
    """A zip whose directory gives member NAME the size CLAIMED while its stream holds ACTUAL bytes."""

    def __init__(self, name, claimed, actual):
        self.info = zipfile.ZipInfo(name)
        self.info.file_size, self.info.compress_type = claimed, zipfile.ZIP_DEFLATED
        self.stream = Stream(b"#" * actual)

    def getinfo(self, name):
        return self.info

    def open(self, info):
        return self.stream


def test_zip_members_are_read_up_to_their_cap():
    # A 1 MiB version.py inflated from a 1 KB member: the Linux wheel's facts are unreadable, not read.
    bomb = "cuda = '13.0'\n" + "#" * index.MAX_TEXT_MEMBER_BYTES
    body = wheel_bytes({"torch/version.py": bomb, "torch/cuda/__init__.py": CUDA_INIT}, padding=1024)
    row = derive.DerivedRow("2.15", "2.15.0")
    derive.read_binary_facts(row, served_wheels(body, "torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"),
                              FakeServer(body))
    assert row.pypi_linux_cuda is None and row.releases_code_cc is None
    assert row.unreadable[-1].endswith("torch/version.py: %d bytes uncompressed, over the %d-byte cap" % (
        len(bomb), index.MAX_TEXT_MEMBER_BYTES))
    # The directory's size is checked before inflating, and the stream is read one byte past the cap, no further.
    honest = LyingArchive("torch/version.py", claimed=1001, actual=1001)
    with pytest.raises(index.TooLarge, match="1001 bytes uncompressed, over the 1000-byte cap"):
        index.read_member(honest, "torch/version.py", 1000)
    assert honest.stream.asked == ()
    lying = LyingArchive("torch/version.py", claimed=100, actual=1 << 20)
    with pytest.raises(index.TooLarge, match="more than 1000 bytes"):
        index.read_member(lying, "torch/version.py", 1000)
    assert lying.stream.asked == (1001,)


def corrupt(body, name):
    """BODY, a zip, with member NAME's deflate stream starting with the reserved block type (3)."""
    info = zipfile.ZipFile(io.BytesIO(body)).getinfo(name)
    broken = bytearray(body)
    broken[info.header_offset + 30 + len(info.filename) + len(info.extra)] = 0xFF
    return bytes(broken)


def test_a_zip_member_whose_directory_lies_or_whose_stream_is_corrupt_is_a_bad_zip():
    body = wheel_bytes({"torch/version.py": "#" * 65536}, padding=1024)
    archive = zipfile.ZipFile(io.BytesIO(body))
    archive.getinfo("torch/version.py").file_size = 100  # the directory says 100 bytes; the stream inflates to 64 KiB
    with pytest.raises(zipfile.BadZipFile):
        index.read_member(archive, "torch/version.py", 1000)
    with pytest.raises(zipfile.BadZipFile, match="torch/version.py: .*invalid block type"):
        index.read_member(zipfile.ZipFile(io.BytesIO(corrupt(body, "torch/version.py"))), "torch/version.py", 1 << 20)


@pytest.mark.parametrize("broken", ["not UTF-8", "corrupt"])
def test_a_companion_wheel_whose_metadata_cannot_be_read_pairs_nothing(broken):
    name = "torchvision-0.29.1.dist-info/METADATA"
    body = wheel_bytes({name: b"Requires-Dist: torch==2.14.0\n" + (b"\xff" if broken == "not UTF-8" else b"")}, padding=1024)
    body = corrupt(body, name) if broken == "corrupt" else body
    wheels = served_wheels(body, "torchvision-0.29.1-cp312-cp312-manylinux_2_28_x86_64.whl")
    assert derive.companion_requirements(wheels, "0.13", FakeServer(body)) == {"0.29.1": None}


class Endless:
    """A 200 response whose body never ends: a read without a size fails the test."""

    status = 200

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def read(self, size=-1):
        assert size is not None and size >= 0, "a read without a cap"
        return b"{" * size


def test_http_bodies_are_read_up_to_their_cap(monkeypatch):
    # A server that ignores Range and streams forever: the ranges are refused, the download stops at the listed size.
    requests = []

    def endless(request, timeout=None):
        requests.append(request.get_header("Range"))
        return Endless()

    with pytest.raises(ValueError, match="torch.whl: the body is longer than 8192 bytes"):
        index.open_remote_zip("https://files.example/torch.whl", 8192, endless)
    assert requests[0].startswith("bytes=") and requests[-1] is None
    monkeypatch.setattr(index, "MAX_INDEX_BYTES", 4096)
    with pytest.raises(index.TooLarge, match="simple/torch/: the body is longer than 4096 bytes"):
        index.fetch_project("https://index.example/simple", "torch", endless)
    # Past MAX_WHEEL_BYTES a refusing server is not downloaded from at all.
    monkeypatch.setattr(index, "MAX_WHEEL_BYTES", 4096)
    requests.clear()
    with pytest.raises(index.TooLarge, match="ranges refused, and the index lists 8192 bytes"):
        index.open_remote_zip("https://files.example/torch.whl", 8192, endless)
    assert None not in requests


def test_every_request_has_a_timeout():
    body = wheel_bytes({"torch/version.py": "cuda = None\n"}, padding=1024)
    server = FakeServer(body, ranges=False)
    index.open_remote_zip("https://files.example/torch.whl", len(body), server)
    assert len(server.timeouts) >= 2 and set(server.timeouts) == {index.HTTP_TIMEOUT}


def test_relative_file_urls_resolve_against_the_page_that_lists_them():
    name = "torchvision-0.29.1-cp312-cp312-manylinux_2_28_x86_64.whl"
    body = wheel_bytes({"torchvision-0.29.1.dist-info/METADATA": "Name: torchvision\nRequires-Dist: torch==2.14.0\n"},
                       padding=1024)
    page = {"files": [dict(simple_entry(name), url="../../packages/ab/" + name, size=len(body))]}
    wheel, urls = FakeServer(body), []

    def opener(request, timeout=None):
        urls.append(request.full_url)
        if request.full_url == "https://index.example/simple/torchvision/":
            response = Response(200, json.dumps(page).encode())
            response.url = "https://mirror.example/pypi/simple/torchvision/"  # where a redirect ended
            return response
        return wheel(request, timeout)

    wheels = index.fetch_project("https://index.example/simple", "torchvision", opener)
    assert [w.url for w in wheels] == ["https://mirror.example/pypi/packages/ab/" + name]
    assert derive.companion_requirements(wheels, "0.13", opener) == {"0.29.1": "==2.14.0"}
    assert set(urls[1:]) == {"https://mirror.example/pypi/packages/ab/" + name}
    scheme_relative = dict(simple_entry(name), url="//files.example/" + name)
    assert index.parse_simple_json({"files": [scheme_relative]}, PAGE)[0].url == "https://files.example/" + name


@pytest.mark.parametrize("url", ["file:///etc/passwd", " file:///etc/passwd", "data:application/zip;base64,UEsFBg==",
                                 "ftp://files.example/torch.whl", "javascript:void(0)", "http://"])
def test_a_file_url_that_is_not_http_is_refused_clearly(url, monkeypatch, capsys):
    page = {"files": [dict(simple_entry("torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"), url=url)]}
    with pytest.raises(ValueError, match=r"torch-2\.15\.0-cp312-cp312-manylinux_2_28_x86_64\.whl has the URL .*, "
                                         r"not an http\(s\) URL"):
        index.parse_simple_json(page, PAGE)
    monkeypatch.setattr(index, "fetch_project", lambda url, project: index.parse_simple_json(page, PAGE))
    assert cli.main(["--no-binaries"]) == 1
    assert capsys.readouterr().err.startswith("refresh: " + PAGE + ": torch-2.15.0-")


@pytest.mark.parametrize("body", [b"[" * 100000, b"<html></html>", b"[1]", b'{"files": {}}', b"\xff"])
def test_an_index_page_that_is_not_pep_691_json_is_a_value_error(body):
    with pytest.raises(ValueError, match="https://index.example/simple/torch/: not a"):
        index.fetch_project("https://index.example/simple", "torch", lambda request, timeout=None: Response(200, body))


@pytest.mark.parametrize("field, value", [("size", "10"), ("size", -1), ("size", True), ("requires-python", [">=3.10"]),
                                          ("url", None)])
def test_an_index_entry_with_a_malformed_field_is_a_value_error(field, value):
    page = {"files": [dict(simple_entry("torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl"), **{field: value})]}
    with pytest.raises(ValueError, match=r"manylinux_2_28_x86_64\.whl has"):
        index.parse_simple_json(page, PAGE)


def test_version_py_is_searched_in_linear_time():
    with deadline(2):
        assert derive.version_py_cuda("cuda:" + " " * 40000) is None
    assert derive.version_py_cuda("cuda : Optional[str] = '12.1'\n") == "12.1"


@pytest.mark.parametrize("source", [
    "PYTORCH_RELEASES_CODE_CC = [75, 80]\n",
    'PYTORCH_RELEASES_CODE_CC = {"13.0": 75}\n',
    'PYTORCH_RELEASES_CODE_CC = {"13.0": {"x86_64": {"75"}}}\n',
    "PYTORCH_RELEASES_CODE_CC = {12.8: {75}}\n",
    'PYTORCH_RELEASES_CODE_CC = {"13.0": {75, (80, [86])}}\n',
    "x = " + "-" * 200000 + "1\n",
])
def test_a_releases_code_cc_of_another_shape_is_a_value_error(source):
    with pytest.raises(ValueError):
        derive.releases_code_cc(source)


def test_no_module_of_the_package_imports_the_maintainer_tool():
    importing = []
    for folder, _, files in os.walk(os.path.join(ROOT, "mps_doctor")):
        for name in (n for n in files if n.endswith(".py")):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read(), path)
            for node in ast.walk(tree):
                modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                           else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                importing += [path for module in modules if module.split(".")[0] == "tools"]
    assert importing == []
    assert not os.path.exists(os.path.join(ROOT, "mps_doctor", "data", "refresh.py"))


def test_free_threaded_pythons_per_platform_from_the_t_abi_tags():
    groups = derive.group_by_minor(index.parse_simple_json(SIMPLE, PAGE))
    row = derive.derive_index_facts((2, 15), groups[(2, 15)], {})
    assert row.free_threaded == {"macos_arm64": ["3.15"], "linux_x86_64": [], "linux_aarch64": ["3.14", "3.15"],
                                 "windows_amd64": ["3.14"]}
    assert "free-threaded wheel tags (cp3XYt) of torch 2.15.0: macos_arm64 cp315t; linux_x86_64 none; " \
           "linux_aarch64 cp314t,cp315t; windows_amd64 cp314t" in row.sources
    assert row.python == ">=3.11,<3.16"  # the t builds stay out of the Python range
    assert derive.derive_index_facts((2, 10), groups[(2, 10)], {}).free_threaded == {key: [] for key in derive.PLATFORM_TESTS}
    shipped = {"free_threaded": {"macos_arm64": ["3.14", "3.15"], "linux_x86_64": [], "linux_aarch64": ["3.14", "3.15"],
                                 "windows_amd64": ["3.14"]}}
    assert [line for line in derive.diff_rows(row, shipped) if line.startswith("free_threaded")] == [
        'free_threaded: table {"macos_arm64": ["3.14", "3.15"], "linux_x86_64": [], "linux_aarch64": ["3.14", "3.15"], '
        '"windows_amd64": ["3.14"]}, wheels {"macos_arm64": ["3.15"], "linux_x86_64": [], "linux_aarch64": ["3.14", '
        '"3.15"], "windows_amd64": ["3.14"]}']
    assert list(derive.PLATFORM_TESTS) == list(FREE_THREADED_PLATFORMS)


@pytest.mark.parametrize("tag, minor", [("cp313-cp313t-win_amd64", 13), ("cp313-cp313-win_amd64", None),
                                        ("cp313-none-win_amd64", None), ("cp313-cp314t-win_amd64", None),
                                        ("pp310-pypy310_pp73t-win_amd64", None)])
def test_a_free_threaded_tag_is_cpython_with_its_own_abi_and_t(tag, minor):
    parsed, = parse_tag(tag)
    assert derive.free_threaded_minor(parsed) == minor


@pytest.mark.network
def test_the_shipped_free_threaded_pythons_are_what_the_index_lists():
    groups = derive.group_by_minor(index.fetch_project(index.PYPI_SIMPLE, "torch"))
    for release in load_releases().releases:
        derived = derive.derive_index_facts(derive.minor_key(Version(release.torch)), groups[derive.minor_key(
            Version(release.torch))], {})
        assert {key: list(release.free_threaded_pythons(key)) for key in FREE_THREADED_PLATFORMS} == derived.free_threaded
