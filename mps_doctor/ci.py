"""Where a run happens: CI systems and hosted macOS runners, read from the environment (and the VM flag)."""

from typing import Mapping, Optional

# Variables that CI systems set (each system's documentation of its default environment variables).
CI_MARKERS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL", "TF_BUILD",
              "TEAMCITY_VERSION", "TRAVIS", "APPVEYOR", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID", "DRONE")


def ci_name(env: Mapping[str, str]) -> Optional[str]:
    """The CI system running us, or None outside CI."""
    for name in CI_MARKERS:
        value = env.get(name)
        if value and value.lower() not in ("0", "false"):
            return "GitHub Actions" if name == "GITHUB_ACTIONS" else name
    return None


def hosted_macos_runner(env: Mapping[str, str], vmm_present: Optional[bool]) -> bool:
    """A hosted macOS CI runner: GitHub's (RUNNER_ENVIRONMENT=github-hosted, or ImageOS on its images), or any CI
    job inside a virtual machine (kern.hv_vmm_present = 1). Apple's Virtualization Framework has no MPS there
    (GitHub runner docs: "Metal Performance Shaders (MPS) are not supported")."""
    github_hosted = env.get("GITHUB_ACTIONS") == "true" and (
        env.get("RUNNER_ENVIRONMENT") == "github-hosted" or bool(env.get("ImageOS")))
    return github_hosted or (ci_name(env) is not None and vmm_present is True)
