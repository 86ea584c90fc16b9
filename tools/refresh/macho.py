"""Reading libtorch_cpu.dylib: its Mach-O load commands (minimum macOS), the MPS message, and the MPSGraph selectors
that at::mps::MPSDevice probes before it creates a device.
"""

import re
import struct
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Tuple

# The selectors at::mps::MPSDevice passes to -[MPSGraph instancesRespondToSelector:] before it creates a device,
# and the macOS that introduced each (aten/src/ATen/mps/MPSDevice.mm of each release: the 12.3 LSTM check,
# PR #133141's macOS 13 cumulativeSum check, PR #162921's "check method introduced in 14.0").
GATE_SELECTORS = (
    ("LSTMWithSourceTensor:recurrentWeight:inputWeight:bias:initState:initCell:descriptor:name:", "12.3"),
    ("cumulativeSumWithTensor:axis:name:", "13.0"),
    ("HermiteanToRealFFTWithTensor:axes:descriptor:name:", "14.0"),
)
MPS_MESSAGE = re.compile(rb"MPS backend is supported on (?:MacOS|macOS) (\d+\.\d+)\+")
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


def numeric(version: str) -> Tuple[int, ...]:
    """'14.0' as (14, 0): a macOS version for comparing."""
    return tuple(int(p) for p in version.split(".") if p.isdigit())


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

