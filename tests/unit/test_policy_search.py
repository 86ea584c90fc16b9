"""The policy search: the nearest pyproject.toml WITH a [tool.mps-doctor] table, up to the repository's root."""


from mps_doctor.policy import find_pyproject, load_policy

TEAM = "[tool.mps-doctor]\ndevice = 'cpu'\nstrict = true\n"
PACKAGE = "[project]\nname = 'sub'\nversion = '1'\n"


def monorepo(root):
    """root/.git, root/pyproject.toml with the team table, root/packages/sub/pyproject.toml without one."""
    (root / ".git").mkdir(parents=True)
    (root / "pyproject.toml").write_text(TEAM)
    sub = root / "packages" / "sub"
    (sub / "src").mkdir(parents=True)
    (sub / "pyproject.toml").write_text(PACKAGE)
    return sub


def test_a_nearer_pyproject_without_the_table_does_not_hide_the_team_policy(tmp_path):
    sub = monorepo(tmp_path / "repo")
    assert find_pyproject(str(sub / "src")) == str(tmp_path / "repo" / "pyproject.toml")
    policy = load_policy(cwd=str(sub))
    assert policy.devices == ("cpu",) and policy.strict


def test_the_nearest_table_wins(tmp_path):
    sub = monorepo(tmp_path / "repo")
    (sub / "pyproject.toml").write_text(PACKAGE + "\n[tool.mps-doctor]\ndevice = 'cuda'\n")
    assert load_policy(cwd=str(sub / "src")).devices == ("cuda",)


def test_the_search_stops_at_the_repository_root(tmp_path):
    (tmp_path / "pyproject.toml").write_text(TEAM)
    repo = tmp_path / "cloned"
    (repo / ".git").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(PACKAGE)
    assert find_pyproject(str(repo)) is None
    assert load_policy(cwd=str(repo)).empty
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: elsewhere\n")
    assert find_pyproject(str(worktree)) is None


