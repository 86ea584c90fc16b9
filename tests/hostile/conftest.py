import pytest

from tests.hostile.shells import make_stub_bin


@pytest.fixture(scope="module")
def stub_bin(tmp_path_factory):
    """Stub commands on a PATH of their own (tests/hostile/shells.py)."""
    return make_stub_bin(tmp_path_factory.mktemp("stubs"))
