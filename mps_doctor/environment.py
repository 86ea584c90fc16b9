"""Which environment variables a report may hold: an allowlist by name, no credentials, no URL passwords."""

from typing import Mapping

from mps_doctor.secrets import CREDENTIAL_NAME, without_userinfo

# Environment variables recorded in a report, by name: each is read by a check, a fix plan or the CI detection
# (docs/report-format.md lists them). Nothing else from the environment is kept, never a whole prefix: a report is
# shared and uploaded, and variables such as UV_INDEX_URL or CONDA_TOKEN carry credentials.
ENV_NAMES = (
    # torch's MPS settings (checks/environment.pytorch_env_problems) and the CUDA device mask (checks/cuda.py).
    "PYTORCH_ENABLE_MPS_FALLBACK", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO",
    "PYTORCH_MPS_FAST_MATH", "PYTORCH_MPS_PREFER_METAL", "PYTORCH_MPS_METAL_VERSION", "CUDA_VISIBLE_DEVICES",
    # How the target Python was installed and which shell the plan is written for (remedies/setup.py).
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SUBDIR", "SHELL", "SYSTEM_VERSION_COMPAT",
    "HOMEBREW_PREFIX", "TERM_PROGRAM",
    # CI systems (ci.CI_MARKERS) and GitHub's hosted runners (ci.hosted_macos_runner).
    "CI", "GITHUB_ACTIONS", "RUNNER_ENVIRONMENT", "ImageOS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL",
    "TF_BUILD", "TEAMCITY_VERSION", "TRAVIS", "APPVEYOR", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID", "DRONE",
    # Sandboxes that hide the GPU (checks/mps.sandbox_marker).
    "MPS_DOCTOR_SANDBOX", "APP_SANDBOX_CONTAINER_ID", "CODEX_SANDBOX",
)
def relevant_env(environ: Mapping[str, str]) -> dict:
    """The allowlisted variables of ENVIRON that diagnoses depend on, without credentials (also applied to a
    loaded report, so that a report carrying secrets does not pass them on)."""
    return {k: without_userinfo(v) for k, v in sorted(environ.items())
            if k in ENV_NAMES and not CREDENTIAL_NAME.search(k) and isinstance(v, str)}
