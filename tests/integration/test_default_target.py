"""The default target: never an environment a tool runner made for the doctor, nor the doctor's own venv.

The layouts below are the ones the tools make; the slow tests run the tools themselves (uvx, `uv run --with`,
`pipx run`, `uv tool install`, `pipx install`, a README venv), offline, from a wheelhouse of the test interpreter's
own packages; uv and pipx themselves come from the package index (`network`).
"""

import json
import os
import shutil
import subprocess
import sys

import pytest

from mps_doctor.probe.default_target import default_python, doctor_only, runner_environment
from tests.helpers import TARGET_PYTHON, doctor_wheelhouse, make_venv, site_packages

SITE = os.path.join("lib", "python%d.%d" % sys.version_info[:2], "site-packages")


def fake_env(prefix, *files):
    """A venv's folder as `python -m venv` lays it out (pyvenv.cfg, bin/python, bin/python3; never run here), with
    FILES (relative paths) created empty: its python."""
    os.makedirs(os.path.join(str(prefix), "bin"))
    for relative in ("pyvenv.cfg",) + files:
        os.makedirs(os.path.dirname(os.path.join(str(prefix), relative)), exist_ok=True)
        open(os.path.join(str(prefix), relative), "w").close()
    for name in ("python", "python3"):
        path = os.path.join(str(prefix), "bin", name)
        with open(path, "w") as handle:
            handle.write("#!/bin/sh\nexit 0\n")
        os.chmod(path, 0o755)
    return os.path.join(str(prefix), "bin", "python")


def dist_info(prefix, name, version="1.0", requires=()):
    """An installed distribution's metadata in PREFIX's site-packages."""
    folder = os.path.join(str(prefix), SITE, "%s-%s.dist-info" % (name.replace("-", "_"), version))
    os.makedirs(folder)
    with open(os.path.join(folder, "METADATA"), "w") as handle:
        handle.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
        handle.writelines("Requires-Dist: %s\n" % line for line in requires)


def uv_cache(root):
    """uv's cache root: uv tags it with CACHEDIR.TAG when it opens it (uv crates/uv-cache/src/lib.rs, Cache::init)."""
    os.makedirs(str(root))
    open(os.path.join(str(root), "CACHEDIR.TAG"), "w").close()
    return str(root)


def uvx_env(cache):
    """uvx's environment: built in the cache's archive bucket and linked from environments-v2/INTERPRETER/RESOLUTION
    (uv crates/uv-cache/src/lib.rs, Cache::persist; crates/uv/src/commands/project/environment.rs, CachedEnvironment);
    the process runs with sys.prefix the archive entry, as `uvx --from . python -c 'import sys; print(sys.prefix)'`
    shows: (prefix, python)."""
    prefix = os.path.join(cache, "archive-v0", "tbtGk2GRg5e1oV5X")
    python = fake_env(prefix, "CACHEDIR.TAG")
    os.makedirs(os.path.join(cache, "environments-v2", "8b0cbae4892decd7"))
    os.symlink(prefix, os.path.join(cache, "environments-v2", "8b0cbae4892decd7", "b6662d0671d4de7a"))
    return prefix, python


def user_python3(folder):
    """A folder on PATH holding a python3 that is nobody's tool environment: its python3."""
    return os.path.join(os.path.dirname(fake_env(folder)), "python3")


def path_of(*pythons):
    """PATH as the bin folders of PYTHONS, in order, then the system's."""
    return os.pathsep.join([os.path.dirname(p) for p in pythons] + ["/usr/bin", "/bin"])


# --- the layouts ----------------------------------------------------------------------------------------------


def test_uvx_puts_its_environment_first_on_path_and_the_doctor_skips_past_it(tmp_path):
    prefix, own = uvx_env(uv_cache(tmp_path / "home" / ".cache" / "uv"))
    user = user_python3(tmp_path / "user")
    # uv prepends the environment's bin to PATH (crates/uv/src/commands/tool/run.rs, "Construct the `PATH`").
    env = {"PATH": path_of(own, user)}
    assert default_python(env, str(tmp_path), own=own, own_prefix=prefix) == (
        user, "python3 on PATH (mps-doctor runs in a temporary environment in uv's cache: uvx, uv run --with)")
    linked = os.path.join(os.path.dirname(os.path.dirname(prefix)), "environments-v2", "8b0cbae4892decd7",
                          "b6662d0671d4de7a")
    assert runner_environment(linked) == runner_environment(prefix) is not None


def test_uvx_without_a_cache_is_recognized_too(tmp_path):
    # --no-cache: a temporary cache in the system's temporary folder, opened like any cache (Cache::temp, Cache::init).
    prefix, own = uvx_env(uv_cache(tmp_path / ".tmpiwcLer"))
    user = user_python3(tmp_path / "user")
    assert default_python({"PATH": path_of(own, user)}, str(tmp_path), own=own, own_prefix=prefix)[0] == user


def test_uv_run_with_sets_virtual_env_to_its_overlay_and_the_project_venv_is_chosen(tmp_path):
    cache = uv_cache(tmp_path / "cache" / "uv")
    _, layer_python = uvx_env(cache)
    # `uv run --with` runs in an overlay environment made by Cache::environment (a temporary folder in builds-v0)
    # and sets VIRTUAL_ENV to it; PATH: the overlay's bin, the --with layer's, the project's (as `uv run --with .
    # python -c 'import os; print(os.environ["PATH"])'` shows in a project).
    overlay = os.path.join(cache, "builds-v0", ".tmpBCLcmX")
    overlay_python = fake_env(overlay)
    project = tmp_path / "proj"
    project_python = fake_env(project / ".venv")
    env = {"VIRTUAL_ENV": overlay, "PATH": path_of(overlay_python, layer_python, project_python)}
    assert default_python(env, str(project), own=overlay_python, own_prefix=overlay) == (
        project_python, "the .venv in %s (VIRTUAL_ENV is a temporary environment in uv's cache: uvx, uv run --with)"
        % project)
    elsewhere = default_python(env, str(tmp_path), own=overlay_python, own_prefix=overlay)
    assert elsewhere[0] == os.path.join(str(project), ".venv", "bin", "python3")


@pytest.mark.parametrize("cache", [os.path.join(".cache", "pipx"), os.path.join("Library", "Caches", "pipx"),
                                   os.path.join(".local", "pipx", ".cache")])
def test_pipx_run_environment_is_skipped(tmp_path, cache):
    # `pipx run` builds a venv named by a hash in pipx's venv cache (the user cache folder's pipx, or .cache under
    # PIPX_HOME) and, like every pipx venv, writes pipx_metadata.json into it (pipx src/pipx/commands/run.py,
    # _get_temporary_venv_path; src/pipx/paths.py, venv_cache; src/pipx/pipx_metadata_file.py); it leaves PATH alone.
    prefix = tmp_path / "home" / cache / "edce309e55cd29d"
    own = fake_env(prefix, "pipx_metadata.json")
    user = user_python3(tmp_path / "user")
    assert default_python({"PATH": path_of(user)}, str(tmp_path), own=own, own_prefix=str(prefix)) == (
        user, "python3 on PATH (mps-doctor runs in pipx run's cached environment)")


def test_pipx_and_uv_tool_installs_stay_right(tmp_path):
    user = user_python3(tmp_path / "user")
    pipx = tmp_path / "home" / ".local" / "share" / "pipx" / "venvs" / "mps-doctor"
    fake_env(pipx, "pipx_metadata.json")
    # `uv tool install` writes uv-receipt.toml into the tool's environment (docs.astral.sh/uv/concepts/tools).
    uv_tool = tmp_path / "home" / ".local" / "share" / "uv" / "tools" / "mps-doctor"
    fake_env(uv_tool, "uv-receipt.toml")
    chosen = {name: default_python({"PATH": path_of(user)}, str(tmp_path), own=str(prefix / "bin" / "python"),
                                   own_prefix=str(prefix)) for name, prefix in (("pipx", pipx), ("uv", uv_tool))}
    assert chosen == {"pipx": (user, "python3 on PATH (mps-doctor runs in pipx's environment)"),
                      "uv": (user, "python3 on PATH (mps-doctor runs in uv tool's environment)")}


def test_a_user_venv_is_no_runner_environment(tmp_path):
    # uv venv tags its venvs with CACHEDIR.TAG too: only the cache's buckets make an environment uv's.
    fake_env(tmp_path / "proj" / ".venv", "CACHEDIR.TAG")
    fake_env(tmp_path / "archive-v0" / "x")
    assert runner_environment(str(tmp_path / "proj" / ".venv")) is None
    assert runner_environment(str(tmp_path / "archive-v0" / "x")) is None
    assert runner_environment(str(tmp_path / "nothing-here")) is None


# --- the doctor's own venv ------------------------------------------------------------------------------------


DOCTOR_REQUIRES = ("click>=8.0", "psutil>=5.6", "packaging>=20", "distro>=1.5", "tomli>=1.1; python_version < '3.11'",
                   "torch; extra == 'torch'")


def doctor_venv(prefix, *others):
    """A venv holding what `python -m venv X && X/bin/pip install mps-doctor` installs, and OTHERS: its python."""
    python = fake_env(prefix)
    dist_info(prefix, "mps-doctor", "0.1.0", DOCTOR_REQUIRES)
    for name in ("click", "psutil", "packaging", "distro", "pip", "setuptools") + others:
        dist_info(prefix, name, requires=("colorama; platform_system == 'Windows'",) if name == "click" else ())
    return python


def test_the_readme_venv_is_the_doctors_own_and_python3_on_path_is_chosen(tmp_path):
    own = doctor_venv(tmp_path / "venvs" / "mps-doctor")
    user = user_python3(tmp_path / "user")
    assert doctor_only(str(tmp_path / "venvs" / "mps-doctor"))
    assert default_python({"PATH": path_of(own, user)}, str(tmp_path), own=own,
                          own_prefix=str(tmp_path / "venvs" / "mps-doctor")) == (
        user, "python3 on PATH (mps-doctor runs in its own venv, which holds nothing but mps-doctor)")
    nothing_else = default_python({"PATH": os.path.dirname(own)}, str(tmp_path), own=own,
                                  own_prefix=str(tmp_path / "venvs" / "mps-doctor"))
    assert nothing_else == (own, "mps-doctor's own environment (no other Python found; mps-doctor runs in its own "
                                 "venv, which holds nothing but mps-doctor)")


@pytest.mark.parametrize("other", ["torch", "numpy", "colorama", "mps-doctor-plugin"])
def test_a_venv_with_anything_more_is_the_users_and_stays_the_target(tmp_path, other):
    # torch (`pip install "mps-doctor[torch]"`), the user's packages, an optional dependency of a dependency.
    own = doctor_venv(tmp_path / "env", other)
    assert not doctor_only(str(tmp_path / "env"))
    assert default_python({"PATH": path_of(user_python3(tmp_path / "user"))}, str(tmp_path), own=own,
                          own_prefix=str(tmp_path / "env")) == (
        own, "the Python running mps-doctor (no environment is active)")


def test_only_a_venv_with_mps_doctor_installed_is_the_doctors_own(tmp_path):
    fake_env(tmp_path / "bare")
    dist_info(tmp_path / "bare", "click")
    os.makedirs(str(tmp_path / "interpreter" / SITE))
    dist_info(tmp_path / "interpreter", "mps-doctor", "0.1.0", DOCTOR_REQUIRES)
    assert not doctor_only(str(tmp_path / "bare"))  # running from a checkout: no mps-doctor distribution
    assert not doctor_only(str(tmp_path / "interpreter"))  # no pyvenv.cfg: a Python installation, not a venv
    assert not doctor_only(str(tmp_path / "gone"))


def test_the_active_venv_and_the_project_venv_win_even_when_they_are_the_doctors_own(tmp_path):
    project = tmp_path / "proj"
    own = doctor_venv(project / ".venv")
    user = user_python3(tmp_path / "user")
    assert default_python({"PATH": path_of(user)}, str(project), own=own, own_prefix=str(project / ".venv"))[0] == own
    assert default_python({"PATH": path_of(user), "VIRTUAL_ENV": str(project / ".venv")}, str(tmp_path), own=own,
                          own_prefix=str(project / ".venv"))[0] == own


# --- for real -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    """(folder of wheels that installs mps-doctor offline, the mps-doctor wheel)."""
    return doctor_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    """A venv holding uv and pipx from the package index, kept off PATH (the suite's other tests mean a machine
    without uv): the folder of their commands."""
    python = make_venv(tmp_path_factory.mktemp("tools") / "venv", with_pip=True)
    subprocess.run([python, "-m", "pip", "install", "-q", "uv", "pipx"], check=True, timeout=600)
    return os.path.dirname(python)


def plain_env(home, user_python):
    """A user's environment for a tool run: HOME and the XDG folders in HOME (the tools' default layouts), nothing
    active, offline (pip, uv), USER_PYTHON's bin first on PATH."""
    os.makedirs(str(home), exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIPX_", "PIP_", "XDG_"))
           and k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_BIN_HOME=str(home / ".local" / "bin"), PIPX_BIN_DIR=str(home / ".local" / "bin"),
               PIPX_MAN_DIR=str(home / ".local" / "share" / "man"), NO_COLOR="1",
               PATH=os.path.dirname(user_python) + os.pathsep + os.environ.get("PATH", ""))
    return env


def offline(env, wheels):
    """ENV with pip and uv installing from the wheelhouse WHEELS only."""
    return dict(env, PIP_NO_INDEX="1", PIP_FIND_LINKS=wheels, UV_OFFLINE="1", UV_NO_INDEX="1", UV_FIND_LINKS=wheels)


def user_venv(folder):
    """The user's venv: one of the target interpreter whose site-packages reaches its torch: its python3."""
    python = make_venv(folder, TARGET_PYTHON)
    with open(os.path.join(site_packages(python), "torch-from-test-env.pth"), "w") as handle:
        handle.write(site_packages(TARGET_PYTHON) + "\n")
    return python + "3"


def checked(argv, env, cwd):
    """The JSON report of ARGV (a `check --format json` run): (exit code, target facts)."""
    done = subprocess.run(argv, env=env, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=300)
    assert done.stdout.startswith("{"), done.stderr[-3000:]
    return done.returncode, json.loads(done.stdout)["facts"]["target"]


CHECK = ("check", "--device", "cpu", "--quick", "--format", "json")


@pytest.mark.slow
def test_readme_venv_install_outside_a_project_diagnoses_python3_on_path(tmp_path, wheelhouse):
    wheels, wheel = wheelhouse
    user = user_venv(tmp_path / "user")
    home = tmp_path / "home"
    # The README: python3 -m venv ~/.venvs/mps-doctor && ~/.venvs/mps-doctor/bin/pip install . (here the wheel of .)
    own = make_venv(home / ".venvs" / "mps-doctor", with_pip=True)
    env = plain_env(home, user)
    subprocess.run([own, "-m", "pip", "install", "-q", wheel], env=offline(env, wheels), check=True)
    code, target = checked([str(home / ".venvs" / "mps-doctor" / "bin" / "mps-doctor")] + list(CHECK), env, home)
    assert (code, target["python"]) == (0, user)
    assert target["chosen_because"] == "python3 on PATH (mps-doctor runs in its own venv, which holds nothing but " \
                                       "mps-doctor)"


@pytest.mark.slow
@pytest.mark.network
def test_uvx_diagnoses_python3_on_path_not_its_own_environment(tmp_path, wheelhouse, tools):
    wheels, wheel = wheelhouse
    user = user_venv(tmp_path / "user")
    home = tmp_path / "home"
    env = plain_env(home, user)
    argv = [os.path.join(tools, "uvx"), "--python", sys.executable, "--from", wheel, "mps-doctor"] + list(CHECK)
    code, target = checked(argv, offline(env, wheels), home)
    assert (code, target["python"]) == (0, user), target
    assert target["chosen_because"] == "python3 on PATH (mps-doctor runs in a temporary environment in uv's cache: " \
                                       "uvx, uv run --with)"


@pytest.mark.slow
@pytest.mark.network
def test_uv_run_with_in_a_project_diagnoses_the_project_venv(tmp_path, wheelhouse, tools):
    wheels, wheel = wheelhouse
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "proj"\nversion = "0.1"\ndependencies = []\n')
    venv = user_venv(project / ".venv")
    env = plain_env(tmp_path / "home", "/nonexistent/python3")
    argv = [os.path.join(tools, "uv"), "run", "--python", venv, "--with", wheel, "mps-doctor"] + list(CHECK)
    code, target = checked(argv, offline(env, wheels), project)
    assert (code, target["python"]) == (0, str(project / ".venv" / "bin" / "python")), target
    assert target["chosen_because"].startswith("the .venv in %s (VIRTUAL_ENV is a temporary environment" % project)


@pytest.mark.slow
@pytest.mark.network
def test_pipx_run_diagnoses_python3_on_path_not_its_cached_environment(tmp_path, wheelhouse, tools):
    wheels, wheel = wheelhouse
    user = user_venv(tmp_path / "user")
    home = tmp_path / "home"
    env = plain_env(home, user)
    argv = [os.path.join(tools, "pipx"), "run", "--python", sys.executable, "--spec", wheel, "mps-doctor"] + list(CHECK)
    code, target = checked(argv, offline(env, wheels), home)
    assert (code, target["python"]) == (0, user), target
    assert target["chosen_because"] == "python3 on PATH (mps-doctor runs in pipx run's cached environment)"


@pytest.mark.slow
@pytest.mark.network
def test_pipx_and_uv_tool_installs_diagnose_python3_on_path(tmp_path, wheelhouse, tools):
    wheels, wheel = wheelhouse
    user = user_venv(tmp_path / "user")
    home = tmp_path / "home"
    env = plain_env(home, user)
    installs = {"pipx": [os.path.join(tools, "pipx"), "install", "--python", sys.executable, wheel],
                "uv tool": [os.path.join(tools, "uv"), "tool", "install", "--python", sys.executable, wheel]}
    for name, argv in installs.items():
        subprocess.run(argv, env=offline(env, wheels), check=True, stdout=subprocess.DEVNULL, timeout=300)
        code, target = checked([str(home / ".local" / "bin" / "mps-doctor")] + list(CHECK), env, home)
        assert (code, target["python"]) == (0, user), target
        assert target["chosen_because"] == "python3 on PATH (mps-doctor runs in %s's environment)" % name
        os.remove(str(home / ".local" / "bin" / "mps-doctor"))
    assert shutil.which("mps-doctor", path=str(home / ".local" / "bin")) is None
