"""mps_doctor.versions: the release table's free-threaded wheels, and the platform a machine's wheels are tagged for."""

import pytest

from mps_doctor.versions import FREE_THREADED_PLATFORMS, load_releases, wheel_platform


def test_every_row_says_which_free_threaded_pythons_have_wheels_on_each_platform():
    table = load_releases()
    for release in table.releases:
        assert [key for key, _ in release.free_threaded] == list(FREE_THREADED_PLATFORMS)
        assert any(line.startswith("free-threaded wheel tags (cp3XYt) of torch %s" % release.torch)
                   for line in release.sources)
    row, _ = table.row_for("2.15.0")
    assert row.free_threaded_pythons("macos_arm64") == ("3.14", "3.15")
    # torch 2.12 stopped building cp313t (its wheels on PyPI: cp314t only); 2.7 was the first with any (cp313t).
    assert table.row_for("2.11")[0].free_threaded_pythons("linux_x86_64") == ("3.13", "3.14")
    assert table.row_for("2.12")[0].free_threaded_pythons("linux_x86_64") == ("3.14",)
    assert table.row_for("2.6")[0].free_threaded_pythons("windows_amd64") == ()
    assert table.row_for("2.7")[0].free_threaded_pythons("linux_aarch64") == ("3.13",)
    assert row.free_threaded_pythons("linux_riscv64") is None


@pytest.mark.parametrize("system, machine, platform", [
    ("Darwin", "arm64", "macos_arm64"), ("Darwin", "x86_64", None), ("Linux", "x86_64", "linux_x86_64"),
    ("Linux", "aarch64", "linux_aarch64"), ("Linux", "arm64", "linux_aarch64"), ("Windows", "AMD64", "windows_amd64"),
    ("Windows", "ARM64", None), ("Linux", None, None), (None, "arm64", None), ("FreeBSD", "amd64", None),
])
def test_wheel_platform_names_the_tag_family_of_a_machine(system, machine, platform):
    assert wheel_platform(system, machine) == platform


def test_companions_older_than_the_rows_pair_by_their_recorded_requires_dist():
    table = load_releases()
    assert table.older_than_rows("1.10.1") and not table.older_than_rows(table.releases[0].torch)
    assert table.companion_minors_before_rows("torchvision", "1.10.1") == ("0.11",)
    assert table.companion_minors_before_rows("torchaudio", "1.3.1") == ("0.3",)
    assert table.companion_for("torchvision", "1.10.1+cpu") == "0.11.2"
    assert table.companion_for("torchaudio", "1.7.1") == "0.7.2"
    assert table.companion_refuses("torchvision", "0.4.0", "1.3.0") == "==1.2.0"
    assert table.companion_refuses("torchvision", "0.4.2", "1.3.1") is None
    assert table.companion_for("torchvision", "1.0.1") is None


def test_each_companion_minor_before_the_rows_serves_newer_torch_than_the_last():
    """The recorded Requires-Dist of torchvision 0.3-0.12 and torchaudio 0.3-0.11 rise with the companion's version."""
    from packaging.version import Version

    from mps_doctor.versions import specifier_minor

    table = load_releases()
    for package in ("torchvision", "torchaudio"):
        older = sorted(((Version(v), specifier_minor(s)) for v, s in table.requires_of(package)))
        assert len(older) >= 17 and all(m is not None for _, m in older)
        assert [m for _, m in older] == sorted(m for _, m in older), package
