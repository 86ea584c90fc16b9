"""Reading a package index and the wheels on it: the PEP 691 JSON simple API (PEP 503's URLs), zip members read
through HTTP range requests, and the caps on every read (the index and the wheels are not trusted).
"""

import io
import json
import re
import struct
import urllib.parse
import urllib.request
import zipfile
import zlib
from dataclasses import dataclass
from typing import Dict, List, NamedTuple, Optional, Tuple

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
    sha256: Optional[str] = None


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


def file_sha256(page_url: str, name: str, hashes) -> Optional[str]:
    """The sha256 the page at PAGE_URL gives file NAME (None when it gives none); ValueError unless 64 hex digits."""
    # PEP 691: "hashes" maps a hash name to the file's hex digest; it may be empty.
    digest = hashes.get("sha256") if isinstance(hashes, dict) else hashes
    if digest is None:
        return None
    if not isinstance(hashes, dict) or not isinstance(digest, str) or not re.match(r"^[0-9a-fA-F]{64}\Z", digest):
        raise ValueError("%s: %s has the hashes %r, not a sha256 hex digest" % (page_url, name, hashes))
    return digest.lower()


def parse_simple_json(doc: dict, page_url: str) -> List[WheelFile]:
    """The wheels of the PEP 691 JSON project page at PAGE_URL (sdists and unparsable names are skipped, yanked files
    too); ValueError when it is not such a page or a wheel's URL, size, hash or Requires-Python is not one."""
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
                                file_size(page_url, name, entry.get("size")),
                                file_sha256(page_url, name, entry.get("hashes"))))
    return wheels


def fetch_project(index: str, project: str, opener=urllib.request.urlopen) -> List[WheelFile]:
    """The wheels of PROJECT on INDEX (a PEP 691 simple API); ValueError for a page over MAX_INDEX_BYTES or not one."""
    reply = http_get(index.rstrip("/") + "/" + project + "/", {"Accept": SIMPLE_JSON}, MAX_INDEX_BYTES, opener)
    try:
        doc = json.loads(reply.body.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # the json module recurses once per level of nesting
        raise ValueError("%s: not a JSON page: %s" % (reply.url, error))
    return parse_simple_json(doc, reply.url)

