"""Which environment variables a report may hold: an allowlist by name, no credentials, no URL passwords."""

import re
from typing import Mapping

# Environment variables recorded in a report, by name: each is read by a check, a fix plan or the CI detection
# (docs/report-format.md lists them). Nothing else from the environment is kept, never a whole prefix: a report is
# shared and uploaded, and variables such as UV_INDEX_URL or CONDA_TOKEN carry credentials.
ENV_NAMES = (
    # torch's MPS settings (advisories.pytorch_env_problems) and the CUDA device mask (checks/cuda.py).
    "PYTORCH_ENABLE_MPS_FALLBACK", "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO",
    "PYTORCH_MPS_FAST_MATH", "PYTORCH_MPS_PREFER_METAL", "PYTORCH_MPS_METAL_VERSION", "CUDA_VISIBLE_DEVICES",
    # How the target Python was installed and which shell the plan is written for (remedies/setup.py).
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_SUBDIR", "SHELL", "SYSTEM_VERSION_COMPAT",
    "HOMEBREW_PREFIX", "TERM_PROGRAM",
    # CI systems (ci.CI_MARKERS) and GitHub's hosted runners (ci.hosted_macos_runner).
    "CI", "GITHUB_ACTIONS", "RUNNER_ENVIRONMENT", "ImageOS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL",
    "TF_BUILD", "TEAMCITY_VERSION", "TRAVIS", "APPVEYOR", "BITBUCKET_BUILD_NUMBER", "CODEBUILD_BUILD_ID", "DRONE",
    # Sandboxes that hide the GPU (checks/layers.sandbox_marker).
    "MPS_DOCTOR_SANDBOX", "APP_SANDBOX_CONTAINER_ID", "CODEX_SANDBOX",
)
# A name that looks like a credential is never recorded, even if a later edit adds it to ENV_NAMES.
CREDENTIAL_NAME = re.compile(r"TOKEN|PASSW|SECRET|_KEY$|^KEY$|KEY_|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|_PAT$|APIKEY",
                             re.IGNORECASE)
# user:password@ (or a bare token@) in a URL, as in https://user:token@index.example/simple (RFC 3986 userinfo).
# Up to the last @ of the word: a token pasted unencoded may hold / # ? (base64 has /), and so may what precedes @.
URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)\S*@")
# A query parameter whose name looks like a credential (?token=, &api_key=, &sig= of a signed URL).
URL_QUERY_SECRET = re.compile(r"([?&;]([^=&#\s]+)=)([^&#\s]*)")
SIGNATURE = re.compile(r"^(SIG|SIGNATURE|X-AMZ-SIGNATURE|X-AMZ-CREDENTIAL)$", re.IGNORECASE)


def without_userinfo(value: str) -> str:
    """VALUE with the user:password@ part of every URL in it removed, and credential-named query values blanked."""
    value = URL_USERINFO.sub(r"\1", value)
    return URL_QUERY_SECRET.sub(lambda m: m.group(1) + ("REDACTED" if CREDENTIAL_NAME.search(m.group(2)) or
                                                         SIGNATURE.match(m.group(2)) else m.group(3)), value)


def relevant_env(environ: Mapping[str, str]) -> dict:
    """The allowlisted variables of ENVIRON that diagnoses depend on, without credentials (also applied to a
    loaded report, so that a report carrying secrets does not pass them on)."""
    return {k: without_userinfo(v) for k, v in sorted(environ.items())
            if k in ENV_NAMES and not CREDENTIAL_NAME.search(k) and isinstance(v, str)}
