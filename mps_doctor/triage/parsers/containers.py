"""Containers and batch jobs: a `docker run` that gives the container no GPU, a SLURM job that requests none."""

import re
from typing import List, Sequence

from mps_doctor import known_errors
from mps_doctor.triage.model import Evidence
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, matching

DOCKER_LINE = known_errors.trigger(known_errors.DOCKER_RUN)
# What gives a container NVIDIA's GPUs: `--gpus` (Docker 19.03+), the nvidia runtime, nvidia-docker, or CDI's
# `--device nvidia.com/gpu=...` (NVIDIA Container Toolkit user guide; docker run reference, "--gpus").
GPU_ACCESS = re.compile(r"--gpus\b|--runtime[= ]nvidia\b|\bnvidia-docker\b|--device[= ]nvidia\.com/gpu")


def parse_containers(lines: Sequence[Line]) -> Result:
    """A `docker run` without GPU access: evidence against the driver layer (it votes for no device; it speaks only
    when the paste is about CUDA)."""
    evidence: List[Evidence] = []
    for index, line in matching(lines, DOCKER_LINE):
        if GPU_ACCESS.search(command_text(lines, index)):
            continue
        error = known_errors.by_id("docker.run-without-gpus")
        evidence.append(Evidence(
            (), "the container was started without GPU access (`docker run` without `--gpus`)",
            "The pasted `docker run` gives the container no GPU: it has neither `--gpus` nor the nvidia runtime.",
            error.cause + " Fix: " + error.fix, error.actions, error.link, line.number, "docker", kind="container-without-gpus"))
        break
    return [], evidence + slurm_job_evidence(lines)


SLURM_LINE = known_errors.trigger(known_errors.SLURM_JOB)
SLURM_SOURCE = "slurm"
# What gives a SLURM job GPUs: `--gres=gpu[:type]:N`, `--gpus[-per-node|-per-task]=N`, `-G N` (srun(1), sbatch(1);
# SLURM's "Generic Resource (GRES) Scheduling").
GPU_REQUEST = re.compile(r"--gres[= ]\S*\bgpu|--gpus(?:-per-[a-z]+)?[= ]|(?:^|\s)-G ?\d", re.I)


def slurm_job_evidence(lines: Sequence[Line]) -> List[Evidence]:
    """A SLURM job (srun, sbatch, salloc, #SBATCH) in a paste that requests no GPU anywhere: evidence against the driver
    layer, as for a container without GPU access (triage/paste.py keeps it only where the paste says CUDA is missing)."""
    job = next((line for _, line in matching(lines, SLURM_LINE)), None)
    if job is None or any(GPU_REQUEST.search(line.text) for line in lines):
        return []
    error = known_errors.by_id("slurm.job-without-gpus")
    return [Evidence(
        (), "the SLURM job requested no GPU (no `--gres=gpu` nor `--gpus`)",
        "The pasted job runs through SLURM and asks for no GPU.",
        error.cause + " Fix: " + error.fix, error.actions, error.link, job.number, SLURM_SOURCE, kind="container-without-gpus")]


# A line a shell continues on the next: `\` (POSIX shells), `^` (cmd), a backquote (PowerShell).
CONTINUED = re.compile(r"[\\^`]\s*$")


def command_text(lines: Sequence[Line], index: int, limit: int = 20) -> str:
    """The command that starts at line INDEX, with the lines it continues on (at most LIMIT)."""
    parts = [lines[index].text]
    for following in lines[index + 1:index + 1 + limit]:
        if not CONTINUED.search(parts[-1]):
            break
        parts.append(following.text)
    return " ".join(parts)
