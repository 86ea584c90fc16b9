"""Maintainer tool: read the release facts from the published wheels and diff them against torch_releases.json.

    python -m mps_doctor.data.refresh [--from 2.2] [--to 2.15] [--index URL] [--no-binaries]

For each torch minor release on the package index it reads, from the artifacts themselves:
- the wheel file names: Python tags (the Python range) and macOS platform tags (the macOS a wheel installs on);
- Requires-Python of the files;
- the torchvision wheels' Requires-Dist on torch (which torchvision pairs with which torch);
- from one macOS arm64 wheel: libtorch_cpu.dylib's minimum macOS (LC_BUILD_VERSION / LC_VERSION_MIN_MACOSX),
  the MPS message text, and the MPSGraph selector that at::mps::MPSDevice tests before it creates a device;
- from one Linux x86_64 wheel: torch/version.py's CUDA version and torch/cuda/__init__.py's
  PYTORCH_RELEASES_CODE_CC.
Wheels are read as zip files through HTTP range requests (the central directory, then only the members needed).
It prints the rows it derives and a diff against the shipped table; it never writes the table. A fact it cannot
read is printed as unreadable, never guessed. The index and the wheels are not trusted: every read is capped (the
MAX_* sizes), every walk over a count or a size from the data stays inside the data, and only http(s) URLs are read.
"""

import argparse
import ast
import io
import json
import re
import struct
import sys
import urllib.parse
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass, field
from email.parser import HeaderParser
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

PYPI_SIMPLE = "https://pypi.org/simple/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
READ_AHEAD = 1 << 20
USER_AGENT = "mps-doctor-refresh (release facts)"

# Caps on what a broken or hostile index, server or wheel can make the tool read (a read takes at most cap + 1 bytes).
# PyPI's JSON page for torch (987 files, up to 2.15) is 423 KB; 64 MiB is room for an index that lists every build.
MAX_INDEX_BYTES = 64 << 20
# Read whole only when ranges are refused: PyPI's largest torch wheel is 916 MB, download.pytorch.org's cu118 ones 2.3 GB.
MAX_WHEEL_BYTES = 4 << 30
# torch 2.15's macOS arm64 libtorch_cpu.dylib is 422 MB uncompressed (102 MB in the wheel); 1 GiB leaves room to grow.
MAX_DYLIB_BYTES = 1 << 30
# Of the text members read (METADATA, torch/version.py, torch/cuda/__init__.py) the largest is 80 KB (torch 2.15's).
MAX_TEXT_MEMBER_BYTES = 1 << 20
# Seconds a connection or a read may stall (urlopen's timeout): without one a server that stops answering hangs the tool.
HTTP_TIMEOUT = 60

# The selectors at::mps::MPSDevice passes to -[MPSGraph instancesRespondToSelector:] before it creates a device,
# and the macOS that introduced each (aten/src/ATen/mps/MPSDevice.mm of each release: the 12.3 LSTM check,
# PR #133141's macOS 13 cumulativeSum check, PR #162921's "check method introduced in 14.0").
GATE_SELECTORS = (
    ("LSTMWithSourceTensor:recurrentWeight:inputWeight:bias:initState:initCell:descriptor:name:", "12.3"),
    ("cumulativeSumWithTensor:axis:name:", "13.0"),
    ("HermiteanToRealFFTWithTensor:axes:descriptor:name:", "14.0"),
)
MPS_MESSAGE = re.compile(rb"MPS backend is supported on (?:MacOS|macOS) (\d+\.\d+)\+")
MACOS_PLATFORM = re.compile(r"^macosx_(\d+)_(\d+)_(arm64|x86_64|universal2)$")


class RangeFile(io.RawIOBase):
    """A read-only, seekable file over an HTTP URL that fetches byte ranges on demand (with a read-ahead block)."""

    def __init__(self, url: str, size: int, opener=urllib.request.urlopen):
        super().__init__()
        self.url, self.size, self.opener = url, size, opener
        self.position = 0
        self.block_start, self.block = 0, b""
        self.fetched = 0
        self.refused = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self.position, io.SEEK_END: self.size}[whence]
        self.position = max(0, base + offset)
        return self.position

    def readinto(self, buffer) -> int:
        wanted = min(len(buffer), self.size - self.position)
        if wanted <= 0:
            return 0
        end = self.position + wanted
        if not (self.block_start <= self.position and end <= self.block_start + len(self.block)):
            last = min(self.size, self.position + max(wanted, READ_AHEAD)) - 1
            length = last - self.position + 1
            try:
                reply = http_get(self.url, {"Range": "bytes=%d-%d" % (self.position, last)}, length, self.opener)
            except TooLarge:
                reply = None  # more than the range: the whole file, or something else
            if reply is None or reply.status != 206 or len(reply.body) != length:
                self.refused = True
                raise RangesRefused(self.url)
            self.block_start, self.block = self.position, reply.body
            self.fetched += length
        start = self.position - self.block_start
        buffer[:wanted] = self.block[start:start + wanted]
        self.position = end
        return wanted


class RangesRefused(IOError):
    """The server answered a range request with something other than the range."""


class TooLarge(ValueError):
    """A body or a zip member is larger than its cap."""


class Reply(NamedTuple):
    """A GET's status, body and final URL (after redirects: the base of the relative URLs in the body)."""

    status: int
    body: bytes
    url: str


def http_get(url: str, headers: Dict[str, str], limit: int, opener=urllib.request.urlopen) -> Reply:
    """The reply to a GET; TooLarge when its body is longer than LIMIT bytes (at most LIMIT + 1 are read)."""
    request = urllib.request.Request(url, headers=dict(headers, **{"User-Agent": USER_AGENT}))
    with opener(request, timeout=HTTP_TIMEOUT) as response:
        body = response.read(limit + 1)
        if len(body) > limit:
            raise TooLarge("%s: the body is longer than %d bytes" % (url, limit))
        # urlopen's response carries the URL it ended at (http.client.HTTPResponse.url); a bare file object does not.
        return Reply(response.status, body, getattr(response, "url", None) or url)


def open_remote_zip(url: str, size: int, opener=urllib.request.urlopen) -> Tuple[zipfile.ZipFile, object]:
    """A ZipFile over URL read by ranges; when the server refuses ranges, over the whole file downloaded once (at most
    SIZE bytes, the index's size, and never more than MAX_WHEEL_BYTES)."""
    remote = RangeFile(url, size, opener)
    try:
        return zipfile.ZipFile(remote), remote
    except (RangesRefused, zipfile.BadZipFile):
        if not remote.refused:
            raise
    if size > MAX_WHEEL_BYTES:
        raise TooLarge("%s: ranges refused, and the index lists %d bytes, over the %d-byte cap" % (url, size, MAX_WHEEL_BYTES))
    return zipfile.ZipFile(io.BytesIO(http_get(url, {}, size, opener).body)), None


# Wheels are zip files (PEP 427) whose members are deflated or stored (the wheel package writes ZIP_DEFLATED).
WHEEL_COMPRESSION = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
# What a broken or hostile wheel raises while it is opened and read: each makes its facts unreadable.
WHEEL_ERRORS = (OSError, KeyError, ValueError, struct.error, zipfile.BadZipFile)


def read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """Member NAME of ARCHIVE uncompressed: KeyError when absent, TooLarge past LIMIT bytes, BadZipFile when it is
    compressed otherwise than a wheel's members, encrypted or corrupt."""
    info = archive.getinfo(name)
    if info.compress_type not in WHEEL_COMPRESSION:
        raise zipfile.BadZipFile("%s: compression method %d, not a wheel's (stored or deflate)" % (name, info.compress_type))
    if info.file_size > limit:
        raise TooLarge("%s: %d bytes uncompressed, over the %d-byte cap" % (name, info.file_size, limit))
    try:
        with archive.open(info) as member:
            # The directory's size can lie: one byte past the cap tells a member that goes on.
            data = member.read(limit + 1)
    except (EOFError, NotImplementedError, RuntimeError, zlib.error) as error:
        raise zipfile.BadZipFile("%s: %s" % (name, error))
    if len(data) > limit:
        raise TooLarge("%s: more than %d bytes uncompressed" % (name, limit))
    return data


@dataclass(frozen=True)
class WheelFile:
    """One wheel on the index, from the simple API."""

    filename: str
    version: Version
    tags: frozenset
    requires_python: Optional[str]
    url: str
    size: int


def file_url(page_url: str, name: str, url) -> str:
    """The URL of file NAME listed as URL on the page at PAGE_URL, resolved; ValueError unless it is http(s)."""
    if not isinstance(url, str):
        raise ValueError("%s: %s has no URL" % (page_url, name))
    # PEP 691 (as PEP 503): a file's URL may be relative, to the URL of the page that lists it.
    resolved = urllib.parse.urlsplit(urllib.parse.urljoin(page_url, url))
    if resolved.scheme not in ("http", "https") or not resolved.netloc:
        raise ValueError("%s: %s has the URL %r, which resolves to %s, not an http(s) URL" % (
            page_url, name, url, resolved.geturl()))
    return resolved.geturl()


def file_size(page_url: str, name: str, size) -> int:
    """The byte size the page at PAGE_URL gives file NAME (0 when it gives none); ValueError unless a natural number."""
    if size is None:
        return 0
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ValueError("%s: %s has the size %r, not a byte count" % (page_url, name, size))
    return size


def parse_simple_json(doc: dict, page_url: str) -> List[WheelFile]:
    """The wheels of the PEP 691 JSON project page at PAGE_URL (sdists and unparsable names are skipped, yanked files
    too); ValueError when it is not such a page or a wheel's URL, size or Requires-Python is not one."""
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, list):
        raise ValueError("%s: not a PEP 691 project page (no files list)" % page_url)
    wheels = []
    for entry in files:
        name = entry.get("filename") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name.endswith(".whl") or entry.get("yanked"):
            continue
        try:
            _, version, _, tags = parse_wheel_filename(name)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        requires = entry.get("requires-python")
        if requires is not None and not isinstance(requires, str):
            raise ValueError("%s: %s has the requires-python %r, not a string" % (page_url, name, requires))
        wheels.append(WheelFile(name, version, frozenset(tags), requires, file_url(page_url, name, entry.get("url")),
                                file_size(page_url, name, entry.get("size"))))
    return wheels


def fetch_project(index: str, project: str, opener=urllib.request.urlopen) -> List[WheelFile]:
    """The wheels of PROJECT on INDEX (a PEP 691 simple API); ValueError for a page over MAX_INDEX_BYTES or not one."""
    reply = http_get(index.rstrip("/") + "/" + project + "/", {"Accept": SIMPLE_JSON}, MAX_INDEX_BYTES, opener)
    try:
        doc = json.loads(reply.body.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # the json module recurses once per level of nesting
        raise ValueError("%s: not a JSON page: %s" % (reply.url, error))
    return parse_simple_json(doc, reply.url)


def cpython_minor(tag) -> Optional[int]:
    """3.X's X for a CPython tag of the regular (not free-threaded) build, else None."""
    match = re.match(r"^cp3(\d+)$", tag.interpreter)
    if not match or tag.abi.endswith("t"):
        return None
    return int(match.group(1))


def macos_platform(platform: str) -> Optional[Tuple[Tuple[int, int], str]]:
    """((major, minor), arch) of a macosx_* platform tag, else None."""
    match = MACOS_PLATFORM.match(platform)
    if not match:
        return None
    return (int(match.group(1)), int(match.group(2))), match.group(3)


def is_linux_x86_64(platform: str) -> bool:
    return platform.startswith(("manylinux", "linux")) and platform.endswith("x86_64")


def pythons_on(wheels: Iterable[WheelFile], platform_test) -> List[int]:
    """Sorted 3.X minors with a regular CPython wheel on the platforms PLATFORM_TEST accepts."""
    return sorted({m for w in wheels for t in w.tags if platform_test(t.platform)
                   for m in [cpython_minor(t)] if m is not None})


def is_macos_arm64(platform: str) -> bool:
    parsed = macos_platform(platform)
    return bool(parsed and parsed[1] in ("arm64", "universal2"))


def is_macos_x86_64(platform: str) -> bool:
    parsed = macos_platform(platform)
    return bool(parsed and parsed[1] in ("x86_64", "universal2"))


def macos_install_minimum(wheels: Iterable[WheelFile]) -> Dict[int, Tuple[int, int]]:
    """Per 3.X minor, the lowest macOS a regular CPython macOS arm64 wheel installs on (its platform tag)."""
    lowest: Dict[int, Tuple[int, int]] = {}
    for wheel in wheels:
        for tag in wheel.tags:
            parsed, minor = macos_platform(tag.platform), cpython_minor(tag)
            if parsed and parsed[1] in ("arm64", "universal2") and minor is not None:
                lowest[minor] = min(lowest.get(minor, parsed[0]), parsed[0])
    return lowest


def python_range(minors: Sequence[int]) -> Optional[str]:
    """'>=3.A,<3.B+1' for contiguous minors A..B, else None."""
    if not minors or list(minors) != list(range(minors[0], minors[-1] + 1)):
        return None
    return ">=3.%d,<3.%d" % (minors[0], minors[-1] + 1)


def torch_requirement(metadata: str) -> Optional[str]:
    """The specifier of the Requires-Dist on torch in a METADATA file ('' for an unpinned torch), else None."""
    for line in HeaderParser().parsestr(metadata).get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name.lower() == "torch" and requirement.marker is None:
            return str(requirement.specifier)
    return None


# --- Mach-O -------------------------------------------------------------------------------------------------
MH_MAGIC_64, FAT_MAGIC = 0xFEEDFACF, 0xCAFEBABE
CPU_TYPE_ARM64 = 0x0100000C
LC_SEGMENT_64, LC_BUILD_VERSION, LC_VERSION_MIN_MACOSX = 0x19, 0x32, 0x24
# Struct sizes of mach-o/fat.h (fat_header, fat_arch) and mach-o/loader.h (mach_header_64, load_command, section_64).
FAT_HEADER, FAT_ARCH, MACH_HEADER_64, LOAD_COMMAND, SECTION_64 = 8, 20, 32, 8, 80
# loader.h: the struct each command read here starts with (build_version_command, version_min_command,
# segment_command_64); a shorter cmdsize is malformed.
COMMAND_SIZES = {LC_BUILD_VERSION: 24, LC_VERSION_MIN_MACOSX: 16, LC_SEGMENT_64: 72}
# loader.h: section types with no data in the file (S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL).
SECTION_TYPE, ZEROFILL_TYPES = 0xFF, (0x1, 0xC, 0x12)


@dataclass
class MachO:
    """What the doctor needs of a 64-bit Mach-O image: its minimum macOS and its sections."""

    data: bytes
    base: int
    minimum_os: Optional[Tuple[int, int, int]]
    sections: Dict[str, Tuple[int, int, int]] = field(default_factory=dict)  # name -> (addr, size, file offset)


def decode_version(packed: int) -> Tuple[int, int, int]:
    """Mach-O's xxxx.yy.zz nibble-packed version."""
    return packed >> 16, (packed >> 8) & 0xFF, packed & 0xFF


def arm64_image(data: bytes) -> Tuple[int, int]:
    """(start, end) of the arm64 image in DATA: all of a thin file, the arm64 slice of a fat one; ValueError when a fat
    file has none or its slice runs past the end."""
    if len(data) < FAT_HEADER or struct.unpack_from(">I", data, 0)[0] != FAT_MAGIC:
        return 0, len(data)
    count = struct.unpack_from(">I", data, 4)[0]
    # fat.h: nfat_arch fat_arch structs follow the header; only those inside DATA are read, whatever nfat_arch says.
    for index in range(min(count, (len(data) - FAT_HEADER) // FAT_ARCH)):
        cputype, _, offset, size, _ = struct.unpack_from(">iiIII", data, FAT_HEADER + FAT_ARCH * index)
        if cputype == CPU_TYPE_ARM64:
            if offset + size > len(data):
                raise ValueError("the arm64 slice (%d bytes at %d) runs past the end of the file (%d bytes)" % (
                    size, offset, len(data)))
            return offset, offset + size
    raise ValueError("fat Mach-O without an arm64 slice")


def load_commands(data: bytes, base: int, end: int) -> Iterator[Tuple[int, int, int]]:
    """(cmd, offset, cmdsize) of each load command of the image at BASE, which ends at END; ValueError for a header
    or a command that does not fit."""
    if base + MACH_HEADER_64 > end:
        raise ValueError("not a Mach-O: %d bytes" % (end - base))
    magic, _, _, _, ncmds, sizeofcmds, _, _ = struct.unpack_from("<IiiIIIII", data, base)
    if magic != MH_MAGIC_64:
        raise ValueError("not a 64-bit little-endian Mach-O (magic %#x)" % magic)
    # loader.h: ncmds commands, sizeofcmds bytes in all, follow mach_header_64; each load_command is at least 8 bytes,
    # its cmdsize included. The walk stays inside sizeofcmds, and sizeofcmds inside the image.
    offset, stop = base + MACH_HEADER_64, base + MACH_HEADER_64 + sizeofcmds
    if stop > end:
        raise ValueError("the load commands (%d bytes) run past the end of the image" % sizeofcmds)
    if ncmds > sizeofcmds // LOAD_COMMAND:
        raise ValueError("%d load commands cannot fit in sizeofcmds %d" % (ncmds, sizeofcmds))
    for index in range(ncmds):
        if offset + LOAD_COMMAND > stop:
            raise ValueError("load command %d starts past sizeofcmds %d" % (index, sizeofcmds))
        cmd, size = struct.unpack_from("<II", data, offset)
        if size < max(LOAD_COMMAND, COMMAND_SIZES.get(cmd, 0)) or offset + size > stop:
            raise ValueError("load command %d (%#x): cmdsize %d is too small or runs past sizeofcmds" % (index, cmd, size))
        yield cmd, offset, size
        offset += size


def add_sections(image: MachO, offset: int, size: int, end: int) -> None:
    """Add the sections of the LC_SEGMENT_64 command at OFFSET, SIZE bytes long, to IMAGE (the first of each name);
    ValueError when they do not fit in the command or their data runs past END."""
    count = struct.unpack_from("<I", image.data, offset + 64)[0]
    # loader.h: segment_command_64's nsects section_64 structs follow it, inside its cmdsize.
    if COMMAND_SIZES[LC_SEGMENT_64] + SECTION_64 * count > size:
        raise ValueError("a segment of %d sections in a %d-byte command" % (count, size))
    for index in range(count):
        start = offset + COMMAND_SIZES[LC_SEGMENT_64] + SECTION_64 * index
        name = image.data[start:start + 16].rstrip(b"\0").decode("ascii", "replace")
        addr, section_size, file_offset, _, _, _, flags = struct.unpack_from("<QQIIIII", image.data, start + 32)
        if flags & SECTION_TYPE in ZEROFILL_TYPES:
            continue
        if image.base + file_offset + section_size > end:
            raise ValueError("section %s (%d bytes at %d) runs past the end of the image" % (name, section_size, file_offset))
        image.sections.setdefault(name, (addr, section_size, image.base + file_offset))


def parse_macho(data: bytes) -> MachO:
    """The arm64 image of DATA (thin, or the arm64 slice of a fat file): minimum OS and sections; ValueError for a
    malformed one."""
    base, end = arm64_image(data)
    image = MachO(data, base, None)
    for cmd, offset, size in load_commands(data, base, end):
        if cmd == LC_BUILD_VERSION:
            image.minimum_os = decode_version(struct.unpack_from("<I", data, offset + 12)[0])
        elif cmd == LC_VERSION_MIN_MACOSX and image.minimum_os is None:
            image.minimum_os = decode_version(struct.unpack_from("<I", data, offset + 8)[0])
        elif cmd == LC_SEGMENT_64:
            add_sections(image, offset, size, end)
    return image


def section_string_address(image: MachO, section: str, text: bytes) -> Optional[int]:
    """The address of the NUL-terminated string TEXT inside SECTION, else None."""
    if section not in image.sections:
        return None
    addr, size, offset = image.sections[section]
    found = image.data.find(b"\0" + text + b"\0", offset - 1, offset + size)
    if found < 0:
        return None
    return addr + (found + 1 - offset)


def selector_references(image: MachO, target: int) -> List[int]:
    """Addresses of the __objc_selrefs slots that point at TARGET (plain or chained-fixup rebase pointers)."""
    if "__objc_selrefs" not in image.sections:
        return []
    addr, size, offset = image.sections["__objc_selrefs"]
    slots = []
    for index in range(0, size - 7, 8):
        # A chained-fixup rebase keeps the target in its low 36 bits; a plain pointer is the address itself.
        if struct.unpack_from("<Q", image.data, offset + index)[0] & 0xFFFFFFFFF == target:
            slots.append(addr + index)
    return slots


def adrp_page(word: int, pc: int) -> Optional[int]:
    """The page an ARM64 ADRP instruction at PC computes, else None."""
    if word & 0x9F000000 != 0x90000000:
        return None
    immediate = ((word >> 29) & 3) | (((word >> 5) & 0x7FFFF) << 2)
    if immediate & (1 << 20):
        immediate -= 1 << 21
    return (pc & ~0xFFF) + (immediate << 12)


def code_loads_of(image: MachO, slot: int) -> List[Tuple[int, int]]:
    """(address, destination register) of each ADRP+LDR pair in __text that loads the 8-byte SLOT."""
    if "__text" not in image.sections:
        return []
    text_addr, size, offset = image.sections["__text"]
    scaled = (slot & 0xFFF) // 8
    byte1 = (scaled & 0x3F) << 2
    byte2 = 0x40 | ((scaled >> 6) & 0x3F)
    # LDR Xt, [Xn, #imm] (unsigned offset, 64-bit): 0xF9400000 | imm12 << 10 | Rn << 5 | Rt, little-endian.
    pattern = re.compile(b"." + b"[" + re.escape(bytes([byte1])) + b"-" + re.escape(bytes([byte1 + 3])) + b"]"
                         + re.escape(bytes([byte2])) + b"\xf9", re.S)
    loads = []
    for match in pattern.finditer(image.data, offset, offset + size):
        at = match.start()
        if (at - offset) % 4:
            continue
        word = struct.unpack_from("<I", image.data, at)[0]
        base_register, destination = (word >> 5) & 31, word & 31
        for back in range(1, 17):
            previous = at - 4 * back
            if previous < offset:
                break
            earlier = struct.unpack_from("<I", image.data, previous)[0]
            if earlier & 0x9F000000 == 0x90000000 and earlier & 31 == base_register:
                if adrp_page(earlier, text_addr + previous - offset) == slot & ~0xFFF:
                    loads.append((text_addr + at - offset, destination))
                break
    return loads


@dataclass(frozen=True)
class BinaryFacts:
    """What one libtorch_cpu.dylib says about MPS."""

    minimum_os: Optional[str]
    message: Optional[str]
    probed: Tuple[Tuple[str, str], ...]
    selectors_present: Tuple[str, ...]

    @property
    def gate(self) -> Optional[Tuple[str, str]]:
        """(selector, macOS) of the OS gate: the oldest probed selector (the others probe newer features)."""
        return min(self.probed, key=lambda item: numeric(item[1])) if self.probed else None


def mps_binary_facts(data: bytes) -> BinaryFacts:
    """Minimum OS, the MPS message's macOS, and the known MPSGraph selectors the code probes.

    With Objective-C selector stubs a message send loads no selector in __text, and without them it loads it into
    x1; `@selector(X)` passed to instancesRespondToSelector: loads it into another register. So a load of a known
    selector into a register other than x1 is a probe: the device gate of at::mps::MPSDevice (the oldest macOS,
    since a gate below the floor would be pointless) or a feature check for a newer macOS (MPSDevice's
    isMacOS13Plus in releases up to 2.4).
    """
    image = parse_macho(data)
    minimum = "%d.%d" % image.minimum_os[:2] if image.minimum_os else None
    message = MPS_MESSAGE.search(data)
    present, probed = [], []
    for selector, macos in GATE_SELECTORS:
        address = section_string_address(image, "__objc_methname", selector.encode())
        if address is None:
            continue
        present.append(selector)
        loads = [load for slot in selector_references(image, address) for load in code_loads_of(image, slot)]
        if any(register != 1 for _, register in loads):
            probed.append((selector, macos))
    return BinaryFacts(minimum, message.group(1).decode() if message else None, tuple(probed), tuple(present))


def string_keyed(value) -> dict:
    """VALUE, a dict keyed by strings (a part of PYTORCH_RELEASES_CODE_CC); ValueError for anything else."""
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError("PYTORCH_RELEASES_CODE_CC: a %s, not a table keyed by strings" % type(value).__name__)
    return value


def capabilities(value) -> List[int]:
    """VALUE, a set of compute capabilities (int), sorted; ValueError for anything else."""
    if not isinstance(value, (set, frozenset, list, tuple)) or not all(isinstance(cc, int) for cc in value):
        raise ValueError("PYTORCH_RELEASES_CODE_CC: a %s, not a set of compute capabilities" % type(value).__name__)
    return sorted(value)


def releases_code_cc(source: str) -> Optional[Dict[str, Dict[str, List[int]]]]:
    """PYTORCH_RELEASES_CODE_CC of a torch/cuda/__init__.py as {cuda: {arch: [cc]}}, or None when it has none;
    ValueError (or SyntaxError) when the source or the table is not one."""
    try:
        tree = ast.parse(source)
    except (RecursionError, MemoryError) as error:  # CPython's parser gives these, not SyntaxError, on deep nesting
        raise ValueError("torch/cuda/__init__.py nests too deeply to parse (%s)" % type(error).__name__)
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "PYTORCH_RELEASES_CODE_CC" for t in targets) and node.value is not None:
            try:
                value = ast.literal_eval(node.value)
            except TypeError as error:  # an unhashable set member or dict key
                raise ValueError("PYTORCH_RELEASES_CODE_CC: %s" % error)
            # 2.11 keeps one set per CUDA version (x86_64); later releases split it by architecture.
            return {cuda: {arch: capabilities(ccs) for arch, ccs in string_keyed(by_arch).items()}
                    if isinstance(by_arch, dict) else {"x86_64": capabilities(by_arch)}
                    for cuda, by_arch in string_keyed(value).items()}
    return None


def version_py_cuda(source: str) -> Optional[str]:
    """The `cuda = '13.0'` of torch/version.py (None for a CPU build or when absent)."""
    # The annotation starts at its first non-space: `\s*` and a class with spaces side by side backtrack quadratically.
    match = re.search(r"^cuda\s*(?::\s*[\w\[\],][\w\[\], ]*)?=\s*['\"]([\d.]+)['\"]", source, re.M)
    return match.group(1) if match else None


# --- Deriving rows ------------------------------------------------------------------------------------------
@dataclass
class DerivedRow:
    """The facts of one torch minor, as read from the index; None means not read (see `unreadable`)."""

    torch: str
    newest: str
    python: Optional[str] = None
    requires_python: Optional[str] = None
    macos_min_install: Optional[str] = None
    install_exceptions: Dict[str, str] = field(default_factory=dict)
    intel_mac_wheels: Optional[bool] = None
    torchvision: Optional[str] = None
    torchvision_versions: List[str] = field(default_factory=list)
    torchaudio: Optional[str] = None
    torchaudio_versions: List[str] = field(default_factory=list)
    dylib_minimum_os: Optional[str] = None
    mps_message: Optional[str] = None
    mps_gate: Optional[str] = None
    mps_probes: List[str] = field(default_factory=list)
    macos_min_mps: Optional[str] = None
    pypi_linux_cuda: Optional[str] = None
    releases_code_cc: Optional[Dict[str, Dict[str, List[int]]]] = None
    sources: List[str] = field(default_factory=list)
    unreadable: List[str] = field(default_factory=list)


def minor_key(version: Version) -> Tuple[int, int]:
    return version.release[0], version.release[1] if len(version.release) > 1 else 0


def group_by_minor(wheels: Iterable[WheelFile]) -> Dict[Tuple[int, int], List[WheelFile]]:
    groups: Dict[Tuple[int, int], List[WheelFile]] = {}
    for wheel in wheels:
        if not wheel.version.is_prerelease:
            groups.setdefault(minor_key(wheel.version), []).append(wheel)
    return groups


def paired_versions(torch: Version, requirements: Dict[str, Optional[str]]) -> List[Version]:
    """The companion versions of the newest companion minor whose Requires-Dist admits TORCH (an unpinned or missing
    requirement admits nothing: it says nothing about the pairing)."""
    admitting = [Version(v) for v, spec in requirements.items() if spec and torch in Requirement("torch" + spec).specifier]
    if not admitting:
        return []
    newest = minor_key(max(admitting))
    return sorted(v for v in admitting if minor_key(v) == newest)


def derive_index_facts(minor: Tuple[int, int], wheels: List[WheelFile], vision_requirements: Dict[str, Optional[str]],
                       audio_requirements: Optional[Dict[str, Optional[str]]] = None) -> DerivedRow:
    """Python range, install minimum, Intel wheels and the torchvision pairing of one torch minor (newest patch)."""
    newest = max(w.version for w in wheels)
    latest = [w for w in wheels if w.version == newest]
    row = DerivedRow("%d.%d" % minor, str(newest))
    mac, linux = pythons_on(latest, is_macos_arm64), pythons_on(latest, is_linux_x86_64)
    both = sorted(set(mac) & set(linux))
    row.python = python_range(both)
    if row.python is None:
        row.unreadable.append("python: no contiguous CPython range on both macOS arm64 and Linux x86_64")
    row.sources.append("wheel tags of torch %s: macOS arm64 %s, Linux x86_64 %s" % (
        newest, ",".join("cp3%d" % m for m in mac) or "none", ",".join("cp3%d" % m for m in linux) or "none"))
    requires = sorted({w.requires_python for w in latest if w.requires_python})
    row.requires_python = ", ".join(requires) or None
    if requires:
        row.sources.append("Requires-Python of torch %s: %s" % (newest, row.requires_python))
    lowest = macos_install_minimum(latest)
    if lowest:
        floor = min(lowest.values())
        row.macos_min_install = "%d.%d" % floor
        row.install_exceptions = {"3.%d" % m: "%d.%d" % v for m, v in sorted(lowest.items()) if v != floor}
        sample = next(w.filename for w in latest if any(macos_platform(t.platform) and
                                                       macos_platform(t.platform)[0] == floor for t in w.tags))
        row.sources.append("platform tag of %s" % sample)
    else:
        row.unreadable.append("macos_min_install: no macOS arm64 wheel")
    row.intel_mac_wheels = bool(pythons_on(latest, is_macos_x86_64))
    for name, requirements in (("torchvision", vision_requirements), ("torchaudio", audio_requirements)):
        if requirements is None:
            continue
        paired = paired_versions(newest, requirements)
        if not paired:
            row.unreadable.append("%s: no %s wheel requires a torch that admits %s" % (name, name, newest))
            continue
        setattr(row, name, "%d.%d" % minor_key(paired[-1]))
        setattr(row, name + "_versions", [str(v) for v in paired])
        row.sources.append("Requires-Dist of %s %s: torch%s" % (
            name, ", ".join(str(v) for v in paired), requirements[str(paired[-1])]))
    return row


def pick_wheel(wheels: List[WheelFile], platform_test, python_minor: int = 12) -> Optional[WheelFile]:
    """A regular CPython 3.PYTHON_MINOR wheel (else any) of the newest version on the platforms PLATFORM_TEST accepts."""
    newest = max(w.version for w in wheels)
    candidates = [w for w in wheels if w.version == newest and any(platform_test(t.platform) for t in w.tags)]
    preferred = [w for w in candidates if any(cpython_minor(t) == python_minor for t in w.tags)]
    return (preferred or candidates or [None])[0]


def read_binary_facts(row: DerivedRow, wheels: List[WheelFile], opener=urllib.request.urlopen) -> None:
    """Fill ROW's dylib, MPS and CUDA facts from one macOS arm64 and one Linux x86_64 wheel."""
    mac = pick_wheel(wheels, is_macos_arm64)
    if mac is None:
        row.unreadable.append("binary: no macOS arm64 wheel")
    else:
        try:
            archive, _ = open_remote_zip(mac.url, mac.size, opener)
            facts = mps_binary_facts(read_member(archive, "torch/lib/libtorch_cpu.dylib", MAX_DYLIB_BYTES))
        except WHEEL_ERRORS as error:
            row.unreadable.append("binary: %s: %s" % (mac.filename, error))
        else:
            row.dylib_minimum_os, row.mps_message = facts.minimum_os, facts.message
            gate = facts.gate
            row.mps_gate = "%s (macOS %s)" % gate if gate else None
            row.mps_probes = ["%s (macOS %s)" % item for item in facts.probed]
            floors = [v for v in (gate[1] if gate else None, row.macos_min_install) if v]
            row.macos_min_mps = max(floors, key=numeric) if floors else None
            row.sources.append("torch/lib/libtorch_cpu.dylib of %s: minimum macOS %s; probed MPSGraph selectors %s; "
                               "message 'MPS backend is supported on macOS %s+'" % (
                                   mac.filename, facts.minimum_os, ", ".join(row.mps_probes) or "none", facts.message))
    linux = pick_wheel(wheels, is_linux_x86_64)
    if linux is None:
        row.unreadable.append("cuda: no Linux x86_64 wheel")
        return
    try:
        archive, _ = open_remote_zip(linux.url, linux.size, opener)
        row.pypi_linux_cuda = version_py_cuda(read_member(archive, "torch/version.py", MAX_TEXT_MEMBER_BYTES).decode("utf-8"))
        row.releases_code_cc = releases_code_cc(
            read_member(archive, "torch/cuda/__init__.py", MAX_TEXT_MEMBER_BYTES).decode("utf-8"))
    except WHEEL_ERRORS + (SyntaxError,) as error:
        row.unreadable.append("cuda: %s: %s" % (linux.filename, error))
        return
    row.sources.append("torch/version.py and torch/cuda/__init__.py of %s: cuda %s; PYTORCH_RELEASES_CODE_CC %s" % (
        linux.filename, row.pypi_linux_cuda, "present" if row.releases_code_cc else "absent"))


def numeric(version: str) -> Tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def companion_requirements(vision: List[WheelFile], since: str, opener=urllib.request.urlopen) -> Dict[str, Optional[str]]:
    """Per version of a companion (torchvision, torchaudio) from SINCE, the specifier of its Requires-Dist on torch,
    read from one wheel."""
    requirements: Dict[str, Optional[str]] = {}
    for version in sorted({w.version for w in vision if w.version >= Version(since) and not w.version.is_prerelease}):
        wheel = pick_wheel([w for w in vision if w.version == version], is_linux_x86_64) or \
            pick_wheel([w for w in vision if w.version == version], is_macos_arm64)
        if wheel is None:
            requirements[str(version)] = None
            continue
        try:
            archive, _ = open_remote_zip(wheel.url, wheel.size, opener)
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            requirements[str(version)] = torch_requirement(read_member(archive, name, MAX_TEXT_MEMBER_BYTES).decode("utf-8"))
        except WHEEL_ERRORS + (StopIteration,):
            requirements[str(version)] = None
    return requirements


# --- Comparing with the shipped table ---------------------------------------------------------------------
COMPARED = ("python", "torchvision", "torchaudio", "macos_min_install", "macos_min_mps", "intel_mac_wheels",
            "pypi_linux_cuda")


def diff_rows(derived: DerivedRow, shipped: Optional[dict]) -> List[str]:
    """'field: table X, wheels Y' for each compared field that differs (an unread field is not a difference)."""
    if shipped is None:
        return ["no row in the table"]
    lines = []
    for name in COMPARED:
        found = getattr(derived, name)
        if found is None:
            continue
        if shipped.get(name) != found:
            lines.append("%s: table %s, wheels %s" % (name, json.dumps(shipped.get(name)), json.dumps(found)))
    builds = shipped.get("cuda_builds") or {}
    if derived.releases_code_cc:
        listed = {cuda: ["%d.%d" % (cc // 10, cc % 10) for cc in ccs.get("x86_64", [])]
                  for cuda, ccs in derived.releases_code_cc.items()}
        if listed != builds:
            lines.append("cuda_builds (x86_64): table %s, wheel's PYTORCH_RELEASES_CODE_CC %s" % (
                json.dumps(builds, sort_keys=True), json.dumps(listed, sort_keys=True)))
    return lines


def render_row(row: DerivedRow) -> str:
    """One derived row as a short block of text."""
    lines = ["torch %s (newest %s)" % (row.torch, row.newest),
             "  python %s   (Requires-Python %s)" % (row.python, row.requires_python),
             "  macOS install minimum %s%s   Intel-Mac wheels %s" % (
                 row.macos_min_install,
                 "".join(" (Python %s: %s)" % item for item in row.install_exceptions.items()),
                 row.intel_mac_wheels),
             "  torchvision %s (%s)   torchaudio %s (%s)" % (row.torchvision, ", ".join(row.torchvision_versions),
                                                           row.torchaudio, ", ".join(row.torchaudio_versions))]
    if row.dylib_minimum_os or row.mps_message or row.mps_gate:
        lines.append("  libtorch_cpu minimum macOS %s; message '%s+'; probes %s" % (
            row.dylib_minimum_os, row.mps_message, ", ".join(p.split(":")[0] + ": (" + p.split("(")[-1]
                                                           for p in row.mps_probes) or "none"))
        lines.append("  MPS gate %s => MPS minimum %s" % (row.mps_gate or "none", row.macos_min_mps))
    if row.pypi_linux_cuda or row.releases_code_cc is not None:
        lines.append("  PyPI Linux x86_64 build: CUDA %s; PYTORCH_RELEASES_CODE_CC x86_64 %s" % (
            row.pypi_linux_cuda, {k: v.get("x86_64") for k, v in row.releases_code_cc.items()}
            if row.releases_code_cc else "absent"))
    lines += ["  unreadable: %s" % item for item in row.unreadable]
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mps_doctor.data.refresh", description=__doc__.split("\n")[0])
    parser.add_argument("--index", default=PYPI_SIMPLE, help="a PEP 691 simple index (default: PyPI)")
    parser.add_argument("--from", dest="first", default="2.2", help="oldest torch minor to read")
    parser.add_argument("--to", dest="last", default=None, help="newest torch minor to read (default: newest)")
    parser.add_argument("--no-binaries", action="store_true", help="skip the dylib and Linux wheel members")
    parser.add_argument("--json", action="store_true", help="print the derived rows as JSON")
    args = parser.parse_args(argv)
    from mps_doctor.versions import DATA_FILE

    with open(DATA_FILE, encoding="utf-8") as handle:
        shipped = {row["torch"]: row for row in json.load(handle)["releases"]}
    first = minor_key(Version(args.first))
    last = minor_key(Version(args.last)) if args.last else None
    try:
        torch_groups = group_by_minor(fetch_project(args.index, "torch"))
        vision = companion_requirements(fetch_project(args.index, "torchvision"), "0.13")
        audio = companion_requirements(fetch_project(args.index, "torchaudio"), "0.12")
    except (OSError, ValueError) as error:  # an index page that cannot be read, or not trusted: nothing to derive
        print("refresh: %s" % error, file=sys.stderr)
        return 1
    rows = []
    for minor in sorted(torch_groups):
        if minor < first or (last is not None and minor > last):
            continue
        row = derive_index_facts(minor, torch_groups[minor], vision, audio)
        if not args.no_binaries:
            read_binary_facts(row, torch_groups[minor])
        rows.append(row)
        if not args.json:
            print(render_row(row))
            for line in diff_rows(row, shipped.get(row.torch)):
                print("  DIFF " + line)
            sys.stdout.flush()
    if args.json:
        print(json.dumps([row.__dict__ for row in rows], indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
