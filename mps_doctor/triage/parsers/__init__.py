"""Parsers of pasted text: each takes the cleaned lines and returns findings (and evidence), with line numbers.

Pure functions; none of them raises on any input. Formats are read from the artifacts that print them (each
parser names its source). A paste is untrusted text of up to 5 MiB: each parser reads only the lines its trigger
finds in one scan of the paste, and every pattern runs in time linear in the line it reads.
"""


from mps_doctor.triage.parsers.builds import parse_builds
from mps_doctor.triage.parsers.collect_env import parse_collect_env
from mps_doctor.triage.parsers.containers import parse_containers
from mps_doctor.triage.parsers.cuda import parse_cuda_messages
from mps_doctor.triage.parsers.env_dumps import parse_conda_info, parse_hf_env, parse_lightning
from mps_doctor.triage.parsers.install import parse_install
from mps_doctor.triage.parsers.paths import parse_paths
from mps_doctor.triage.parsers.people import parse_people
from mps_doctor.triage.parsers.platform import parse_nvidia_smi, parse_platform, parse_sw_vers
from mps_doctor.triage.parsers.prose import parse_prose
from mps_doctor.triage.parsers.session import parse_session
from mps_doctor.triage.parsers.windows import parse_windows

PARSERS = (parse_collect_env, parse_lightning, parse_hf_env, parse_conda_info, parse_sw_vers, parse_platform,
           parse_nvidia_smi, parse_install, parse_session, parse_prose, parse_people, parse_paths, parse_windows,
           parse_builds, parse_cuda_messages, parse_containers)
# Which parser wins when two disagree on a fact: the dumps printed by a program first, prose last.
PRIORITY = ("collect_env", "session", "shell", "sw_vers", "uname", "conda-info", "conda-plan", "hf-env", "lightning", "platform",
            "nvidia-smi", "cuda-message", "windows", "build", "wheel", "uv", "pip", "catalogue", "path", "template", "prose", "before-fix")
