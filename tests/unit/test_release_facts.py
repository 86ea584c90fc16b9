"""Release facts come from the release table (data/torch_releases.json through versions.py): no torch, Python or
macOS release number is written in the package's code or message prose, nor in the known-error catalogue's causes and
fixes where they speak of the current table. Docstrings and comments, which name sources, are not read."""

import ast
import glob
import json
import os
import re

from mps_doctor.known_errors import load_catalogue
from mps_doctor.versions import Release, ReleaseTable, load_releases, mps_minimums, table_words, with_table_facts
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
CATALOGUE = os.path.join(ROOT, "mps_doctor", "data", "known_errors.json")
NUMBER = re.compile(r"(?<![\w.])\d{1,2}\.\d{1,2}(?:\.\d+)?(?!\w)")
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")

RATIO = "a watermark ratio of MPSAllocator, not a release"
COMPAT = "the compatibility version that macOS reports to a Python built against an old SDK, not a release"
# (file, number) -> why it may stay in a string of the package's code.
ALLOWED_IN_CODE = {
    ("mps_doctor/__init__.py", "0.1.0"): "mps-doctor's own version",
    ("mps_doctor/model/command.py", "2.9"): "an example of a release number's form in an error message",
    ("mps_doctor/model/command.py", "2.9.1"): "an example of a release number's form in an error message",
    ("mps_doctor/model/dtypes.py", "13.3"): "historic: MPSGraph's int64 reductions arrived in macOS 13.3",
    ("mps_doctor/model/dtypes.py", "1.12"): "a source citation: the releases whose OperationUtils.mm was read",
    ("mps_doctor/model/dtypes.py", "2.15"): "a source citation: the releases whose OperationUtils.mm was read",
    ("mps_doctor/model/dtypes.py", "2.3"): "historic: bfloat16 arrived on MPS in torch 2.3",
    ("mps_doctor/model/dtypes.py", "15.0"): "historic: the macOS that torch's binaries name for int64 scatter_reduce",
    ("mps_doctor/model/dtypes.py", "8.0"): "NVIDIA's fact: native bfloat16 from compute capability 8.0 (Ampere)",
    ("mps_doctor/model/measured.py", "0.0"): RATIO,
    ("mps_doctor/model/measured.py", "1.0"): RATIO,
    ("mps_doctor/model/measured.py", "2.5"): "historic: torch.mps.recommended_max_memory() arrived in torch 2.5",
    ("mps_doctor/model/results.py", "2.0"): "historic: TorchDispatchMode's mode stack arrived in torch 2.0",
    ("mps_doctor/render/junit.py", "1.0"): "the XML declaration's version, not a release",
    ("mps_doctor/checks/device_work.py", "1.7"): RATIO,
    ("mps_doctor/checks/environment.py", "0.0"): RATIO,
    ("mps_doctor/checks/environment.py", "0.8"): RATIO,
    ("mps_doctor/checks/environment.py", "1.0"): RATIO,
    ("mps_doctor/checks/environment.py", "2.0"): RATIO,
    ("mps_doctor/checks/environment.py", "3.1"): "the form of PYTORCH_MPS_METAL_VERSION, a Metal version",
    ("mps_doctor/checks/mps.py", "14.0"): "torch's own message, quoted as libtorch_cpu.dylib writes it",
    ("mps_doctor/checks/platform.py", "10.16"): COMPAT,
    ("mps_doctor/release_choice.py", "10.16"): COMPAT,
    ("mps_doctor/triage/stale.py", "10.16"): COMPAT,
    ("mps_doctor/checks/python.py", "3.7"): "the probe child's own oldest Python (child/__main__.py), not torch's",
    ("mps_doctor/policy.py", "2.9"): "an example of a specifier's form in an error message",
    ("mps_doctor/policy.py", "2.15"): "an example of a specifier's form in an error message",
    ("mps_doctor/policy.py", "14.0"): "an example of a macOS version's form in an error message",
    ("mps_doctor/triage/parsers/collect_env.py", "1.12"): "historic: collect_env's format of torch 1.12",
    ("mps_doctor/triage/parsers/collect_env.py", "1.13"): "historic: collect_env's format of torch 1.13",
    ("mps_doctor/triage/parsers/collect_env.py", "2.0"): "historic: collect_env's format of torch 2.0",
    ("mps_doctor/triage/parsers/collect_env.py", "2.9"): "historic: collect_env's format of torch 2.9",
    ("mps_doctor/triage/parsers/collect_env.py", "2.10"): "historic: collect_env's format of torch 2.10",
    ("mps_doctor/triage/parsers/install.py", "2.2"): "the last Intel-Mac release notes' minor",
    ("mps_doctor/triage/parsers/install.py", "2.5"): "historic: torch 2.5 had no Python 3.13 wheels",
    ("mps_doctor/triage/parsers/install.py", "3.13"): "historic: torch 2.5 had no Python 3.13 wheels",
    ("mps_doctor/triage/parsers/collect_env.py", "10.16"): COMPAT,
    ("mps_doctor/triage/parsers/platform.py", "2.0.0"): "historic: the torch of pytorch#97226 that died on a Raspberry Pi 4",
    ("mps_doctor/triage/parsers/platform.py", "2.4.0"): "historic: the torch of pytorch#132032 that died on a Raspberry Pi 4",
    ("mps_doctor/triage/parsers/platform.py", "2.10.0"): "historic: the torch of pytorch#176993 that died on a Raspberry Pi 4",
    ("mps_doctor/triage/parsers/results.py", "10.2"): "historic: the CUDA of the builds that were right on a GTX 16 (pytorch#69449)",
}
HISTORIC = "historic: what a past release did, which no newer row changes"
AWQ_WHEELS = "autoawq's wheels: awq_inference_engine in 0.1.0's to 0.1.8's, none in 0.2.0's (autoawq-kernels has awq_ext)"
AWQ_README = "autoawq 0.2.0's METADATA (its README): 'Your CUDA version must be CUDA 11.8 or later'"
COREML_OPS = HISTORIC + (" (coremltools 4.0b2 calls _jit_pass_canonicalize_ops, 4.0 only below torch 1.6.0; torch 1.5.1's"
                         " libtorch_python has it, 1.6.0's not)")
COREML_CONV = HISTORIC + (" (_convolution in _VariableFunctions.pyi: 12 arguments in torch 1.6.0, 13 with allow_tf32 in 1.7.0;"
                          " coremltools 4.0's ops.py takes 12 or 7, 4.1's 12 or more)")
COREML_GELU = HISTORIC + (" (F.gelu: gelu(input) in torch 1.11.0, gelu(input, approximate) in 1.12.0; coremltools 5.2.0's ops.py"
                          " expects 1 input)")
COREML_MAX = "coremltools 5.2.0's _deps/__init__.py: _TORCH_MAX_VERSION = \"1.10.2\" (4.0b2's has no such warning)"
COREML_THREADS = "the threads' working pairs: torch 1.5.1 with 4.0b2 (coremltools#827), 1.11 with 5.2 (EfficientFormer#22)"
DGL_WHEELS = "dgl's wheels on PyPI: dgl/tensoradapter/pytorch/ in 0.6.0's and later ones, not in 0.5.3's"
DGL_THREAD = "the pair of dgl#3716 as its reporter wrote it; EquiBind#8's reporter downgraded torch 1.10.2 to 1.10.0"
NUMPY_ARM = ("the releases of numpy#18131 and dusty-nv's answer; aarch64 wheels: 1.19.5 bundles OpenBLAS 0.3.13,"
             " 1.19.4 OpenBLAS 0.3.9.dev")
PYG_SDISTS = HISTORIC + (" (sdists: torch-scatter 1.3.1's setup.py builds torch_scatter.scatter_cuda if CUDA_HOME,"
                         " torch-sparse 0.4.4's unique_cuda; 2.0.2's and 0.5.1's one extension)")
CPU_AUTOCAST = HISTORIC + (" (torch/cpu/amp/ from 1.10.0's wheel; CPU supported_dtype [bfloat16] in 2.1.0's autocast_mode.py,"
                           " [bfloat16, float16] in 2.2.0's)")
CPU_AUTOCAST_RAISE = HISTORIC + (" ('AutocastCPU only support Bfloat16' in libtorch_cpu of 2.0.0 and 2.1.0, not 2.2.0; their"
                                 " __enter__ sets the dtype after the warning)")
INT4PACK = HISTORIC + " (ATen/ops/_convert_weight_to_int4pack.h and _weight_int4pack_mm.h: in the 2.2.0 wheel, not in 2.1.2's)"
TORCHAUDIO = HISTORIC + (" (functional/__init__.py: no loudness in torchaudio 0.12.1's wheel, in 0.13.0's and 0.13.1's;"
                         " METADATA pins torch==1.12.1 and torch==1.13.1)")
TORCHTEXT = HISTORIC + (" (wheels: torchtext/data/field.py in 0.8.1's, torchtext/legacy/ in 0.9.0's to 0.11.2's, neither in"
                        " 0.12.0's)")
TORCHTEXT_PINS = "torchtext's METADATA: 0.8.1 torch==1.7.1, 0.11.2 torch==1.10.2, 0.18.0 (the index's last) torch>=2.3.0"
MINKOWSKI_THREAD = ("the reporter's environment in MinkowskiEngine#421 (changed from the issue template's examples) and its"
                    " answer 'c++-9 is a must instead of c++7.4'")
SPAWN_DEFAULT = ("CPython's Lib/multiprocessing/context.py: 3.8.18's makes spawn the default when sys.platform is darwin,"
                 " 3.7.16's does not")
DISPATCH = HISTORIC + (" (include/ATen/Dispatch.h: scalar_type(const at::DeprecatedTypeProperties&) in the 2.5.0 and 2.5.1"
                       " wheels, only scalar_type(at::ScalarType) in 2.6.0's)")
BNB_LIBCUDA = HISTORIC + (" (bitsandbytes' wheels: cuda_setup/main.py calls CDLL(\"libcuda.so\") from 0.31.8, the first on PyPI,"
                          " to 0.40.0.post4; 0.40.1's does not)")
# (entry id, number) -> why it may stay in the catalogue's cause or fix (the current table's facts are placeholders).
ALLOWED_IN_CATALOGUE = {
    ("triton.no-active-driver", "3.1.0"): "the triton wheels read: _create_driver's message and is_active in 3.1.0 to 3.4.0",
    ("triton.no-active-driver", "3.4.0"): "the triton wheels read: _create_driver's message and is_active in 3.1.0 to 3.4.0",
    ("conda.torch-package-missing-in-channels", "4.3"): "conda's releases that word the error so (pytorch#1847)",
    ("pip.ssl-certificate-verify-failed", "22.2"): "pip's releases: --use-feature=truststore from 22.2, truststore by default from 24.2",
    ("pip.ssl-certificate-verify-failed", "24.2"): "pip's releases: --use-feature=truststore from 22.2, truststore by default from 24.2",
    ("windows.pip-path-too-long", "2.13"): HISTORIC + " (dist-info license files: 1 in 2.12.0's win_amd64 wheel, 262 in 2.13.0's)",
    ("windows.pip-path-too-long", "21.1"): "the pip release of its long-path HINT (the threads)",
    ("bitsandbytes.cuda-setup-failed", "0.43"): "bitsandbytes' first release with Windows wheels on PyPI (0.43.0)",
    ("bitsandbytes.cuda-setup-failed", "0.43.0"): "bitsandbytes' first release with Windows wheels on PyPI (0.43.0)",
    ("gpytorch.torch-too-old", "0.4"): HISTORIC + " (the torch of gpytorch#409; 1.0.0's distributions/utils.py has _standard_normal)",
    ("gpytorch.torch-too-old", "1.0"): HISTORIC + " (the torch of gpytorch#409; 1.0.0's distributions/utils.py has _standard_normal)",
    ("pip.torch-pypi-placeholder-setup", "0.1.2"): HISTORIC + " (the placeholder source package on PyPI)",
    ("pip.torch-pypi-placeholder-setup", "1.7"): HISTORIC + " (PyPI's first win_amd64 torch wheels are 1.7.0's)",
    ("pip.torch-pypi-placeholder-setup", "1.7.0"): HISTORIC + " (PyPI's first win_amd64 torch wheels are 1.7.0's)",
    ("torch.cpuinfo-sysfs-unavailable", "2.1.2"): HISTORIC + " (the release with cpuinfo's fix, pytorch#113568)",
    ("xformers.not-built-with-cuda", "2.0"): HISTORIC + " (the release that added scaled_dot_product_attention)",
    ("transformers.remote-code-needs-flash-attn", "4.31.0"): "the transformers wheel whose dynamic_module_utils.py was read",
    ("transformers.remote-code-needs-flash-attn", "8.0"): "flash-attn 2's capability floor (mha_fwd in csrc/flash_attn/flash_api.cpp)",
    ("pip.companion-pins-another-torch", "20.0.2"): "pip's releases whose wheels' commands/install.py word it so (read)",
    ("pip.companion-pins-another-torch", "20.2.4"): "pip's releases whose wheels' commands/install.py word it so (read)",
    ("pip.companion-pins-another-torch", "23.2.1"): "pip's releases whose wheels' commands/install.py word it so (read)",
    ("coremltools.native-libs-missing", "3.11"): "the Python of apple/coremltools#1730 (coremltools 6.x had no wheel for it)",
    ("coremltools.native-libs-missing", "3.14"): "the Python of apple/coremltools#2695 (coremltools 9.0 had no wheel for it)",
    ("coremltools.native-libs-missing", "9.0"): "the coremltools release of apple/coremltools#2695",
    ("coremltools.torch-op-not-implemented", "2.0"): "the torch of mazzzystar/Queryable#9, an example",
    ("coremltools.torch-op-not-implemented", "6.3"): "the coremltools release of mazzzystar/Queryable#9, an example",
    ("onnx.windows-dll-init-failed", "1.16.1"): "onnx's releases in onnx/onnx#6267 (1.16.2 needs a newer MSVC runtime)",
    ("onnx.windows-dll-init-failed", "1.16.2"): "onnx's releases in onnx/onnx#6267 (1.16.2 needs a newer MSVC runtime)",
    ("torch.onnx-onnxscript-missing", "2.9"): HISTORIC + " (torch/onnx/__init__.py: dynamo: bool = False in 2.8.0, True in 2.9.0)",
    ("torch.onnx-onnxscript-missing", "2.13.0"): "the wheel whose METADATA was read (no onnxscript requirement)",
    ("poetry.torch-cuda-deps-without-markers", "1.13.0"): HISTORIC + " (METADATA: nvidia-*-cu11 unmarked; 1.13.1's Linux-only)",
    ("poetry.torch-cuda-deps-without-markers", "1.13.1"): HISTORIC + " (METADATA: nvidia-*-cu11 unmarked; 1.13.1's Linux-only)",
    ("torch.distributed-unavailable", "1.3"): HISTORIC + " (no _c10d_init in the macOS wheels of 1.1.0 and 1.2.0, present in 1.3.0's)",
    ("torch.distributed-unavailable", "1.7"): HISTORIC + " (distributed on Windows from 1.7: 1.7.0's torch_python.dll has _c10d_init)",
    ("torch.distributed-unavailable", "1.1.0"): HISTORIC + " (no _c10d_init in the macOS wheels of 1.1.0 and 1.2.0, present in 1.3.0's)",
    ("torch.distributed-unavailable", "1.2.0"): HISTORIC + " (no _c10d_init in the macOS wheels of 1.1.0 and 1.2.0, present in 1.3.0's)",
    ("torch.distributed-unavailable", "1.3.0"): HISTORIC + " (no _c10d_init in the macOS wheels of 1.1.0 and 1.2.0, present in 1.3.0's)",
    ("torch.distributed-unavailable", "1.7.0"): HISTORIC + " (distributed on Windows from 1.7: 1.7.0's torch_python.dll has _c10d_init)",
    ("uv.dependency-from-pytorch-index", "3.0.2"): "the markupsafe release of uv#12620, an example",
    ("uv.torch-plain-version-from-pytorch-index", "2.5.1"): "the torch release of uv#10843 and uv#11418, an example",
    ("uv.torch-plain-version-from-pytorch-index", "0.5.22"): "the uv release the thread names, an example",
    ("torch.distributed-libuv-unavailable", "2.4"): HISTORIC + " (libuv became the TCPStore default; PyTorch's TCPStore libuv tutorial)",
    ("torch.extension-needs-aten-ceil-div", "1.10.0"): HISTORIC + " (ATen/ceil_div.h: absent from the 1.10.0 wheel, in 1.11.0's)",
    ("torch.extension-needs-aten-ceil-div", "1.11"): HISTORIC + " (ATen/ceil_div.h: absent from the 1.10.0 wheel, in 1.11.0's)",
    ("torch.extension-needs-aten-ceil-div", "1.11.0"): HISTORIC + " (ATen/ceil_div.h: absent from the 1.10.0 wheel, in 1.11.0's)",
    ("torch.extension-th-thc-removed", "1.10.0"): HISTORIC + " (include/TH/TH.h: in the 1.10.0 wheel, not in 1.11.0's)",
    ("torch.extension-th-thc-removed", "1.11"): HISTORIC + " (include/TH/TH.h: in the 1.10.0 wheel, not in 1.11.0's)",
    ("torch.extension-th-thc-removed", "1.11.0"): HISTORIC + " (include/TH/TH.h: in the 1.10.0 wheel, not in 1.11.0's)",
    ("torch.extension-th-thc-removed", "1.5.1"): HISTORIC + " (the release the CenterNet paste ran, without THCState_getCurrentStream)",
    ("torch.utils-ffi-removed", "0.4"): HISTORIC + " (torch.utils.ffi's last release; from 1.0 a stub raises the ImportError)",
    ("torch.utils-ffi-removed", "1.0"): HISTORIC + " (torch.utils.ffi's last release; from 1.0 a stub raises the ImportError)",
    ("torch.utils-ffi-removed", "1.10.0"): HISTORIC + " (the stub read from the 1.10.0 and 1.11.0 wheels)",
    ("torch.utils-ffi-removed", "1.11.0"): HISTORIC + " (the stub read from the 1.10.0 and 1.11.0 wheels)",
    ("torchvision.datapoints-renamed", "0.15"): HISTORIC + " (torchvision/datapoints/ in the 0.15.2 wheel, tv_tensors/ in 0.16.0's)",
    ("torchvision.datapoints-renamed", "0.15.2"): HISTORIC + " (torchvision/datapoints/ in the 0.15.2 wheel, tv_tensors/ in 0.16.0's)",
    ("torchvision.datapoints-renamed", "0.16"): HISTORIC + " (torchvision/datapoints/ in the 0.15.2 wheel, tv_tensors/ in 0.16.0's)",
    ("torchvision.datapoints-renamed", "0.16.0"): HISTORIC + " (torchvision/datapoints/ in the 0.15.2 wheel, tv_tensors/ in 0.16.0's)",
    ("torchvision.datapoints-renamed", "2.0.1"): HISTORIC + " (the torch that rtdetr_pytorch pins beside torchvision 0.15)",
    ("mps.macos-too-old", "2.5"): HISTORIC + " (2.5 said 12.3+ while needing 13.0)",
    ("mps.macos-too-old", "12.3"): HISTORIC + " (2.5 said 12.3+ while needing 13.0)",
    ("mps.macos-too-old", "13.0"): HISTORIC + " (the stale minimums torch's messages name)",
    ("mps.macos-too-old", "14.0"): HISTORIC + " (2.10 nightlies said 13.0+ while needing 14.0)",
    ("mps.macos-too-old", "10.16"): COMPAT,
    ("mps.macos-too-old", "2.10"): HISTORIC + " (2.10 nightlies said 13.0+ while needing 14.0)",
    ("mps.macos-too-old", "2.15"): HISTORIC + " (what 2.15's own message says, read from its libtorch_cpu.dylib)",
    ("mps.macos-too-old", "15.0"): HISTORIC + " (what 2.15's own message says, read from its libtorch_cpu.dylib)",
    ("mps.op-needs-macos15", "2.7"): HISTORIC + " (the releases whose binaries print each message)",
    ("mps.op-needs-macos15", "2.12"): HISTORIC + " (the releases whose binaries print each message)",
    ("mps.op-needs-macos15", "2.13"): HISTORIC + " (the releases whose binaries print each message)",
    ("mps.op-needs-macos15", "2.14"): HISTORIC + " (the releases whose binaries print each message)",
    ("mps.op-needs-macos15", "2.15"): HISTORIC + " (the releases whose binaries print each message)",
    ("mps.macos-too-old", "16.0"): COMPAT,
    ("mps.dtype-needs-macos14", "10.16"): COMPAT,
    ("mps.placeholder-storage", "2.4"): HISTORIC + " (the release whose message names the tensor)",
    ("cuda.driver-too-old", "11.4"): "an example of reading the driver's number (11040 is CUDA 11.4)",
    ("cuda.driver-too-old", "11.8"): "an example of an index name (cu118 for CUDA 11.8)",
    ("cuda.arch-not-compatible", "12.8"): "NVIDIA's fact: sm_120 needs CUDA 12.8",
    ("pip.torch-from-versions-none", "2.2"): HISTORIC + " (the first release with Python 3.12 wheels)",
    ("pip.torch-from-versions-none", "2.5"): HISTORIC + " (the first release with Python 3.13 wheels)",
    ("pip.torch-from-versions-none", "2.9"): HISTORIC + " (the first release with Python 3.14 wheels)",
    ("pip.torch-from-versions-none", "3.12"): HISTORIC + " (the first release with Python 3.12 wheels)",
    ("pip.torch-from-versions-none", "3.13"): HISTORIC + " (the first release with Python 3.13 wheels)",
    ("pip.torch-from-versions-none", "3.14"): HISTORIC + " (the first release with Python 3.14 wheels)",
    ("uv.torch-no-wheel-for-platform", "2.5.1"): HISTORIC + " (torch 2.5.1 had no Python 3.13 wheels on macOS)",
    ("uv.torch-no-wheel-for-platform", "3.13"): HISTORIC + " (torch 2.5.1 had no Python 3.13 wheels on macOS)",
    ("webui.python-version-untested", "3.10"): "stable-diffusion-webui's fact: its launcher's supported Pythons",
    ("webui.python-version-untested", "3.7"): "stable-diffusion-webui's fact: its launcher's supported Pythons",
    ("webui.python-version-untested", "3.11"): "stable-diffusion-webui's fact: its launcher's supported Pythons",
    ("mps.out-of-memory", "0.0"): RATIO,
    ("mps.out-of-memory", "1.7"): RATIO,
    ("mps.out-of-memory", "2.0"): RATIO,
    ("mps.cumsum-int64", "13.3"): HISTORIC + " (MPSGraph's int64 cumsum arrived in macOS 13.3)",
    ("mps.dtype-unsupported", "2.3"): HISTORIC + " (bfloat16 and complex arrived on MPS in torch 2.3)",
    ("mps.isin-needs-macos14", "2.9"): HISTORIC + " (torch 2.9 made macOS 14 MPS's minimum)",
    ("numpy.abi-mismatch", "2.3"): HISTORIC + " (the first torch built for NumPy 2)",
    ("numpy.array-api-not-found", "2.3"): HISTORIC + " (the first torch built for NumPy 2)",
    ("torch.companion-abi-mismatch", "2.9.0"): "an example of a matching trio",
    ("torch.companion-abi-mismatch", "0.24.0"): "an example of a matching trio",
    ("accelerate.bf16-needs-supported-device", "2.6"): "accelerate's own message: its MPS bf16 needs torch 2.6",
    ("accelerate.bf16-needs-supported-device", "8.0"): "NVIDIA's fact: bf16 needs compute capability 8.0 (Ampere)",
    ("mps.bfloat16-unsupported", "2.3"): HISTORIC + " (bfloat16 arrived on MPS in torch 2.3)",
    ("mps.sparse-unsupported", "2.9"): HISTORIC + " (the release the thread reports)",
    ("windows.dll-init-failed", "2.8.0"): HISTORIC + " (the last release the thread found loading)",
    ("windows.dll-init-failed", "2.9"): HISTORIC + " (the release the thread reports)",
    ("torchvision.nms-missing", "2.4.0"): "an example of a mismatched pair",
    ("torchvision.nms-missing", "0.20.1"): "an example of a mismatched pair",
    ("windows.dll-load-failed", "2.4.0"): HISTORIC + " (torch 2.4.0 missed a DLL that 2.4.1 ships)",
    ("windows.dll-load-failed", "2.4.1"): HISTORIC + " (torch 2.4.0 missed a DLL that 2.4.1 ships)",
    ("dgl.graphbolt-missing-for-torch", "2.2.1"): HISTORIC + " (the last DGL published for Windows and macOS)",
    ("dgl.graphbolt-missing-for-torch", "2.1"): "DGL's maintainers' advice for DGL 2.2.1 (the torch it was built for)",
    ("dgl.graphbolt-missing-for-torch", "2.3"): "an example of DGL's wheel index for one torch and CUDA",
    ("dgl.graphbolt-missing-for-torch", "12.1"): "an example of DGL's wheel index for one torch and CUDA",
    ("torch.extension-abi-mismatch", "2.5"): "an example of PyG's wheel index for one torch and CUDA",
    ("torch.extension-abi-mismatch", "2.5.0"): "an example of PyG's wheel index for one torch and CUDA",
    ("torch.extension-abi-mismatch", "12.4"): "an example of PyG's wheel index for one torch and CUDA",
    ("pip.torch-source-placeholder", "0.1.2"): HISTORIC + " (torch's only source release on PyPI, 2017)",
    ("python.dataclass-mutable-default", "3.10"): "Python's fact: the dataclasses change of 3.11",
    ("python.dataclass-mutable-default", "3.11"): "Python's fact: the dataclasses change of 3.11",
    ("python.dataclass-mutable-default", "0.12"): HISTORIC + " (the fairseq release that fails on Python 3.11)",
    ("bitsandbytes.windows-unsupported", "0.43.0"): "bitsandbytes' fact: its first release with Windows wheels",
    ("easyocr.gpu-flag-as-map-location", "1.0"): HISTORIC + " (the EasyOCR releases with the bug)",
    ("easyocr.gpu-flag-as-map-location", "1.1"): HISTORIC + " (the EasyOCR releases with the bug)",
    ("pip.companion-no-version", "0.1.1"): "torchrl's wheels on PyPI: 0.1.1 the last with cp37",
    ("pip.companion-no-version", "0.2.0"): "torchrl's wheels on PyPI: 0.1.1 the last with cp37",
    ("pip.companion-no-version", "3.7"): "torchrl's wheels on PyPI: 0.1.1 the last with cp37",
    ("torch.device-type-mismatch-legacy", "1.0"): HISTORIC + " (the 1.0-era wording of the message)",
    ("torch.device-type-mismatch-legacy", "1.0.0"): HISTORIC + " (the wheel the 1.0-era wording was read from)",
    ("torch.device-type-mismatch-legacy", "1.4.0"): HISTORIC + " (the wheel the later wording was read from)",
    ("torch.dynamo-python-unsupported", "2.3"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torch.dynamo-python-unsupported", "2.4"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torch.dynamo-python-unsupported", "2.5"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torch.dynamo-python-unsupported", "2.6"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torch.dynamo-python-unsupported", "3.11"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torch.dynamo-python-unsupported", "3.12"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torch.dynamo-python-unsupported", "3.13"): HISTORIC + " (torch.compile traces Python 3.12 from 2.4, 3.13 from 2.6)",
    ("torchrl.no-wheel-for-platform", "0.2.0"): "torchrl's wheels on PyPI (first for Apple Silicon)",
    ("torchrl.no-wheel-for-platform", "0.4.0"): "torchrl's wheels on PyPI (none for Intel Macs from it)",
    ("basicsr.ops-extension-not-built", "0.9"): "BasicSR's maintainer: torchvision's deform_conv2d from 0.9 (torch 1.8)",
    ("basicsr.ops-extension-not-built", "1.8"): "BasicSR's maintainer: torchvision's deform_conv2d from 0.9 (torch 1.8)",
    ("nvcc.unsupported-msvc-version", "11.8"): "NVIDIA's fact: the MSVC releases each CUDA toolkit's host_config.h accepts",
    ("nvcc.unsupported-msvc-version", "12.1"): "NVIDIA's fact: the MSVC releases each CUDA toolkit's host_config.h accepts",
    ("nvcc.unsupported-msvc-version", "12.3"): "NVIDIA's fact: the MSVC releases each CUDA toolkit's host_config.h accepts",
    ("nvcc.unsupported-msvc-version", "17.10"): "Microsoft's fact: Visual Studio 2022 17.10 ships MSVC 19.40",
    ("nvcc.unsupported-msvc-version", "17.9"): "Microsoft's fact: Visual Studio 2022 17.10 ships MSVC 19.40",
    ("nvcc.unsupported-msvc-version", "19.40"): "Microsoft's fact: Visual Studio 2022 17.10 ships MSVC 19.40",
    ("nvcc.unsupported-msvc-version", "12.4"): "NVIDIA's fact, read from the host_config.h of its nvcc wheels",
    ("nvcc.unsupported-msvc-version", "19.50"): "NVIDIA's fact, read from the host_config.h of its nvcc wheels",
    ("nvcc.unsupported-msvc-version", "11.8.89"): "the version of NVIDIA's nvcc wheel the bound was read from",
    ("nvcc.unsupported-msvc-version", "12.1.105"): "the version of NVIDIA's nvcc wheel the bound was read from",
    ("nvcc.unsupported-msvc-version", "12.3.107"): "the version of NVIDIA's nvcc wheel the bound was read from",
    ("nvcc.unsupported-msvc-version", "12.4.131"): "the version of NVIDIA's nvcc wheel the bound was read from",
    ("autogptq.setup-torch-without-cuda", "0.3"): 'a release of the library the entry is about, not of torch',
    ("autogptq.setup-torch-without-cuda", "0.7"): 'a release of the library the entry is about, not of torch',
    ("autogptq.setup-torch-without-cuda", "12.1"): 'the CUDA of an example index URL',
    ("macos.deployment-target-below-python", "10.14"): "Apple's fact: the deployment target of instructions written for Intel Macs",
    ("macos.deployment-target-below-python", "11.0"): "Apple's fact: the first macOS of Apple Silicon, an arm64 Python's deployment target",
    ("macos.deployment-target-below-python", "3.8"): 'the Python release whose distutils the message was read from',
    ("nvcc.unsupported-gpu-architecture", "9.2"): "NVIDIA's fact: a CUDA toolkit that predates Turing",
    ("nvcc.unsupported-gpu-architecture", "10.0"): "NVIDIA's fact: the first CUDA for Turing (nvidia.json capability_ceiling)",
    ("nvcc.unsupported-gpu-architecture", "11.1"): "NVIDIA's fact: the first CUDA that compiles for sm_86 (nvidia.json capability_ceiling)",
    ("nvcc.unsupported-gpu-architecture", "7.0"): 'a compute capability in an example TORCH_CUDA_ARCH_LIST, not a release',
    ("openmmlab.mmcv-version-incompatible", "2.1.0"): 'a release of the library the entry is about, not of torch',
    ("openmmlab.mmcv-version-incompatible", "2.2.0"): 'a release of the library the entry is about, not of torch',
    ("quantization.kernels-torch-mismatch", "0.0.6"): 'a release of the library the entry is about, not of torch',
    ("quantization.kernels-torch-mismatch", "0.0.21"): 'a release of the library the entry is about, not of torch',
    ("quantization.kernels-torch-mismatch", "2.2.0"): HISTORIC + " (the torch a kernel release was built for, as its maintainers wrote)",
    ("quantization.kernels-torch-mismatch", "2.3.0"): HISTORIC + " (the torch a kernel release was built for, as its maintainers wrote)",
    ("torch.extension-link-cudart-missing", "2.1"): HISTORIC + " (the release that added the lib fallback, read from its wheel)",
    ("torch.extension-link-cudart-missing", "2.0.1"): HISTORIC + " (the wheel the lib64-only flags were read from)",
    ("torch.extension-link-cudart-missing", "2.1.0"): HISTORIC + " (the wheel the fallback was read from)",
    ("torch.extension-link-cudart-missing", "12.1"): 'the CUDA of an example toolkit folder',
    ("torch.pytorch3d-pypi-placeholder", "0.0.1"): "PyTorch3D's placeholder release on PyPI, not torch's",
    ("torch.pytorch3d-pypi-placeholder", "11.0"): "Apple's fact: the first macOS of Apple Silicon, a deployment target",
    ("trl.vllm-device-unavailable", "0.14"): 'a release of the library the entry is about, not of torch',
    ("pip.torch-variant-not-published", "1.8.0"): HISTORIC + " (the release whose Windows command named a missing variant)",
    ("pip.torch-variant-not-published", "10.2"): HISTORIC + " (the CUDA of that missing variant)",
    ("conda.torch-packages-not-found", "11.7"): HISTORIC + " (a cudatoolkit pin the pytorch channel never had)",
    ("conda.torch-packages-not-found", "1.13"): HISTORIC + " (the release whose conda builds moved to pytorch-cuda)",
    ("conda.torch-packages-not-found", "10.2"): HISTORIC + " (a cudatoolkit the channels no longer serve)",
    ("conda.pytorch-cudatoolkit-conflict", "1.0.1"): HISTORIC + " (a conda build and its cudatoolkit range)",
    ("conda.pytorch-cudatoolkit-conflict", "1.3.1"): HISTORIC + " (a conda build and its cudatoolkit range)",
    ("conda.pytorch-cudatoolkit-conflict", "10.0.130"): HISTORIC + " (a cudatoolkit range of a conda build)",
    ("conda.pytorch-cudatoolkit-conflict", "10.1"): HISTORIC + " (a cudatoolkit range of a conda build)",
    ("conda.pytorch-cudatoolkit-conflict", "10.2"): HISTORIC + " (a cudatoolkit range of a conda build)",
    ("torch.companion-cuda-runtime-missing", "0.10.0"): HISTORIC + " (the torchaudio of the thread's example)",
    ("torch.companion-cuda-runtime-missing", "1.10.0"): HISTORIC + " (Colab's torch of the thread's example)",
    ("torch.companion-cuda-runtime-missing", "10.2"): HISTORIC + " (the CUDA PyPI's torchaudio 0.10.0 was built for)",
    ("pip.torch-local-version-not-on-index", "2.0.1"): HISTORIC + " (the pin of the thread's example)",
    ("pip.requirement-unset-variable", "2.1.2"): HISTORIC + " (the pin of the thread's example)",
    ("transformers.bf16-needs-ampere", "8.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("transformers.bf16-needs-ampere", "7.5"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("transformers.bf16-needs-ampere", "7.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("transformers.bf16-needs-ampere", "6.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("cublas.bf16-unsupported-gpu", "8.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("multiprocessing.spawn-main-not-guarded", "3.8"): "Python's fact: the release from which macOS starts workers with spawn",
    ("torch.load-weights-only-default", "2.6"): HISTORIC + " (the release that made weights_only the default)",
    ("vllm.bf16-needs-ampere", "6.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("vllm.bf16-needs-ampere", "6.1"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("vllm.bf16-needs-ampere", "7.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("vllm.bf16-needs-ampere", "7.5"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("vllm.bf16-needs-ampere", "8.0"): "NVIDIA's fact: a compute capability (nvidia.json gpu_capability), not a release",
    ("trl.vllm-device-unavailable", "0.15"): 'a release of the library the entry is about, not of torch',
    ("torch.extension-torch-too-old", "1.1"): HISTORIC + " (TORCH_CHECK arrived in torch 1.2's headers, read from the wheels)",
    ("torch.extension-torch-too-old", "1.1.0"): HISTORIC + " (TORCH_CHECK arrived in torch 1.2's headers, read from the wheels)",
    ("torch.extension-torch-too-old", "1.2"): HISTORIC + " (TORCH_CHECK arrived in torch 1.2's headers, read from the wheels)",
    ("torch.extension-torch-too-old", "1.2.0"): HISTORIC + " (TORCH_CHECK arrived in torch 1.2's headers, read from the wheels)",
    ("torch.extension-torch-too-old", "1.3"): "BasicSR's fact: its requirement torch >= 1.3",
    ("linux.glibc-too-old-for-torch-wheels", "2.7.0"): HISTORIC + " (torch's Linux wheels are manylinux_2_28 from 2.7.0)",
    ("linux.glibc-too-old-for-torch-wheels", "2.7"): HISTORIC + " (torch's Linux wheels are manylinux_2_28 from 2.7.0)",
    ("linux.glibc-too-old-for-torch-wheels", "2.6"): HISTORIC + " (torch's Linux wheels are manylinux_2_28 from 2.7.0)",
    ("linux.glibc-too-old-for-torch-wheels", "2.6.0"): HISTORIC + " (PyPI's files: 2.6.0's x86_64 wheels are manylinux1)",
    ("linux.glibc-too-old-for-torch-wheels", "2.28"): "the manylinux_2_28 tag's glibc (PEP 600)",
    ("linux.glibc-too-old-for-torch-wheels", "2.27"): "the distributions' glibc: Ubuntu 18.04 has 2.27, CentOS 7 has 2.17",
    ("linux.glibc-too-old-for-torch-wheels", "2.17"): "the distributions' glibc: Ubuntu 18.04 has 2.27, CentOS 7 has 2.17",
    ("linux.glibc-too-old-for-torch-wheels", "18.04"): "the distributions' glibc: Ubuntu 18.04 has 2.27, CentOS 7 has 2.17",
    ("linux.glibc-too-old-for-torch-wheels", "20.04"): "a distribution with glibc 2.28 or newer (Ubuntu 20.04 has 2.31)",
    ("marker.mps-multiprocessing-unsupported", "0.2"): HISTORIC + " (the marker releases whose batch converter refuses MPS)",
    ("torch.compile-windows-unsupported", "2.0"): HISTORIC + " (the releases whose dynamo check refuses Windows)",
    ("torch.compile-windows-unsupported", "2.1"): HISTORIC + " (the releases whose dynamo check refuses Windows)",
    ("torch.compile-windows-unsupported", "2.4"): HISTORIC + " (a release whose dynamo check no longer names Windows)",
    ("torch.mps-device-type-unknown", "1.10"): HISTORIC + " (a release whose device parser has no 'mps')",
    ("torchvision.functional-tensor-removed", "0.15"): HISTORIC + " (torchvision deprecated functional_tensor in 0.15)",
    ("torchvision.functional-tensor-removed", "0.17"): HISTORIC + " (torchvision removed functional_tensor in 0.17)",
    ("torchvision.functional-tensor-removed", "0.16"): HISTORIC + " (the last torchvision with functional_tensor)",
    ("torchvision.functional-tensor-removed", "2.1"): HISTORIC + " (the torch that torchvision 0.16 pairs with)",
    ("mps.autocast-unsupported", "2.4"): HISTORIC + " (the last torch without MPS autocast)",
    ("mps.autocast-unsupported", "2.5"): HISTORIC + " (MPS autocast arrived in torch 2.5)",
    ("mps.autocast-unsupported", "4.38.1"): HISTORIC + " (transformers 4.38.2 autocast MPS in rotary embeddings)",
    ("mps.autocast-unsupported", "4.38.2"): HISTORIC + " (transformers 4.38.2 autocast MPS in rotary embeddings)",
    ("mps.autocast-dtype-unsupported", "1.9.5"): HISTORIC + " (the AutoForge release that fixed its MPS dtype)",
    ("inductor.mps-float64-unsupported", "2.7"): HISTORIC + " (the first release whose inductor generates Metal code)",
    ("inductor.mps-unsupported", "2.3"): HISTORIC + " (the releases whose inductor asserts 'Device mps not supported')",
    ("inductor.mps-unsupported", "2.6"): HISTORIC + " (the releases whose inductor asserts 'Device mps not supported')",
    ("inductor.mps-unsupported", "2.7"): HISTORIC + " (the first release whose inductor generates Metal code)",
    ("torch.api-missing-in-old-torch", "1.7"): HISTORIC + " (nn.SiLU and functional.silu arrived in torch 1.7)",
    ("torch.api-missing-in-old-torch", "1.8"): HISTORIC + " (torch.linalg.solve arrived in torch 1.8)",
    ("torch.api-missing-in-old-torch", "1.9"): HISTORIC + " (torch.special arrived in torch 1.9)",
    ("torch.fft-function-removed", "1.7"): HISTORIC + " (the torch.fft module arrived in torch 1.7)",
    ("torch.fft-function-removed", "1.7.1"): HISTORIC + " (the last torch with torch.rfft)",
    ("torch.fft-function-removed", "1.8"): HISTORIC + " (torch 1.8 removed torch.rfft, irfft and ifft)",
    ("torch.linalg-function-removed", "0.0.2"): "ci_sdr's fact: the release ported to torch.linalg.solve",
    ("torch.linalg-function-removed", "1.9"): HISTORIC + " (the release that deprecated torch.solve and its kin)",
    ("torch.linalg-function-removed", "1.13"): HISTORIC + " (the release that removed torch.solve, lstsq, eig, matrix_rank)",
    ("torch.linalg-function-removed", "2.0"): HISTORIC + " (the release that removed torch.symeig)",
    ("torch.six-removed", "0.3"): "timm's fact: its 0.3 releases import container_abcs from torch._six",
    ("torch.six-removed", "0.4.12"): "timm's fact: the release the Conformer reporter installed",
    ("torch.six-removed", "1.9"): HISTORIC + " (the release whose torch._six has no container_abcs)",
    ("torch.six-removed", "2.0"): HISTORIC + " (the release without torch._six)",
    ("torch.volatile-removed", "0.3"): HISTORIC + " (the last torch with Variable's volatile flag)",
    ("torch.volatile-removed", "0.4"): HISTORIC + " (torch 0.4 removed volatile)",
    ("torch.zero-dim-tensor-index", "0.3"): HISTORIC + " (the last torch whose losses were one-element tensors)",
    ("torch.zero-dim-tensor-index", "0.4"): HISTORIC + " (torch 0.4 introduced 0-dim tensors)",
    ("autoawq.kernels-not-loaded", "0.1"): AWQ_WHEELS,
    ("autoawq.kernels-not-loaded", "11.8"): AWQ_README,
    ("bitsandbytes.windows-before-0-43", "0.43.0"): "bitsandbytes' wheels on PyPI: win_amd64 from 0.43.0, none for 0.42.0 or older",
    ("coremltools.torch-signature-changed", "1.5.1"): COREML_THREADS,
    ("coremltools.torch-signature-changed", "1.6"): COREML_OPS,
    ("coremltools.torch-signature-changed", "1.7"): COREML_CONV,
    ("coremltools.torch-signature-changed", "4.0"): COREML_CONV,
    ("coremltools.torch-signature-changed", "1.12"): COREML_GELU,
    ("coremltools.torch-signature-changed", "5.2"): COREML_MAX,
    ("coremltools.torch-signature-changed", "1.10.2"): COREML_MAX,
    ("coremltools.torch-signature-changed", "1.11"): COREML_THREADS,
    ("cuda.autocast-bf16-unsupported", "8.0"): "NVIDIA's fact: 2.2.0's torch.cuda.is_bf16_supported: major >= 8",
    ("dgl.tensoradapter-missing-for-torch", "0.6"): DGL_WHEELS,
    ("dgl.tensoradapter-missing-for-torch", "0.7.2"): DGL_THREAD,
    ("dgl.tensoradapter-missing-for-torch", "1.10.0"): DGL_THREAD,
    ("dgl.tensoradapter-missing-for-torch", "1.10.2"): DGL_THREAD,
    ("jetson.numpy-openblas-illegal-instruction", "1.19.4"): NUMPY_ARM,
    ("jetson.numpy-openblas-illegal-instruction", "1.19.5"): NUMPY_ARM,
    ("pip.extension-wheel-not-supported", "3.8"): "the Python of KoboldAI#13's cp38 wheel, as its maintainer answered",
    ("pip.extension-wheel-not-supported", "3.11"): "the Python of ComfyUI-CogVideoXWrapper#294, as its reporter wrote it",
    ("pyg.extension-cuda-module-missing", "0.4"): PYG_SDISTS,
    ("pyg.extension-cuda-module-missing", "1.3.1"): PYG_SDISTS,
    ("pyg.extension-cuda-module-missing", "2.0"): PYG_SDISTS,
    ("torch.autocast-cpu-dtype-unsupported", "0.9.12"): "the TorchStudio release its maintainer named in TorchStudio#41",
    ("torch.autocast-cpu-dtype-unsupported", "1.10"): CPU_AUTOCAST,
    ("torch.autocast-cpu-dtype-unsupported", "2.1"): CPU_AUTOCAST,
    ("torch.autocast-cpu-dtype-unsupported", "2.2"): CPU_AUTOCAST,
    ("torch.autocast-cpu-dtype-unsupported", "2.0"): CPU_AUTOCAST_RAISE,
    ("torch.int4pack-op-missing-in-old-torch", "2.1"): INT4PACK,
    ("torch.int4pack-op-missing-in-old-torch", "2.2"): INT4PACK,
    ("torchaudio.api-missing-in-old-torchaudio", "0.12.1"): TORCHAUDIO,
    ("torchaudio.api-missing-in-old-torchaudio", "0.13"): TORCHAUDIO,
    ("torchaudio.api-missing-in-old-torchaudio", "0.13.1"): TORCHAUDIO,
    ("torchaudio.api-missing-in-old-torchaudio", "1.12.1"): TORCHAUDIO,
    ("torchaudio.api-missing-in-old-torchaudio", "1.13.1"): TORCHAUDIO,
    ("torchaudio.api-missing-in-old-torchaudio", "2.0"): "knn-vc's maintainer's answer in knn-vc#7 (torch and torchaudio >= 2.0)",
    ("torchrl.extension-torch-mismatch", "2.0"): HISTORIC + " (c10/core/SymBool.h: in torch 2.0.0's wheel, not 1.13.1's)",
    ("torchtext.legacy-api-removed", "0.8"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "0.8.1"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "0.9"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "0.9.0"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "0.11"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "0.11.2"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "0.12.0"): TORCHTEXT,
    ("torchtext.legacy-api-removed", "1.7.1"): TORCHTEXT_PINS,
    ("torchtext.legacy-api-removed", "1.10.2"): TORCHTEXT_PINS,
    ("torchtext.legacy-api-removed", "0.18.0"): TORCHTEXT_PINS,
    ("torchtext.legacy-api-removed", "2.3"): TORCHTEXT_PINS,
    ("minkowski.spmm-invalid-argument", "0.5.4"): MINKOWSKI_THREAD,
    ("minkowski.spmm-invalid-argument", "1.9.1"): MINKOWSKI_THREAD,
    ("minkowski.spmm-invalid-argument", "20.04"): MINKOWSKI_THREAD,
    ("minkowski.spmm-invalid-argument", "7.4"): MINKOWSKI_THREAD,
    ("multiprocessing.worker-function-not-picklable", "3.8"): SPAWN_DEFAULT,
    ("torch.extension-deprecated-type-dispatch", "2.5"): DISPATCH,
    ("torch.extension-deprecated-type-dispatch", "2.5.1"): DISPATCH,
    ("torch.extension-deprecated-type-dispatch", "2.6"): DISPATCH,
    ("torch.extension-deprecated-type-dispatch", "2.6.0"): DISPATCH,
    ("torch.extension-deprecated-type-dispatch", "0.20.1"): "torchvision 0.20.1's METADATA: Requires-Dist: torch (==2.5.1)",
    ("bitsandbytes.libcuda-unversioned-not-found", "0.31.8"): BNB_LIBCUDA,
    ("bitsandbytes.libcuda-unversioned-not-found", "0.40.0"): BNB_LIBCUDA,
    ("bitsandbytes.libcuda-unversioned-not-found", "0.40.1"): BNB_LIBCUDA,
}


def docstrings(tree):
    """The ids of the docstring nodes of TREE (module, class and function docstrings)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.add(id(first.value))
    return found


def numbers_in_code(source, name):
    """{(NAME, number)} for each release-like number in a string of SOURCE that is not a docstring."""
    tree = ast.parse(source, name)
    skip = docstrings(tree)
    return {(name, number) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
            for number in NUMBER.findall(node.value)}


def package_numbers():
    found = set()
    for path in sorted(glob.glob(os.path.join(ROOT, "mps_doctor", "**", "*.py"), recursive=True)):
        name = os.path.relpath(path, ROOT).replace(os.sep, "/")
        if not name.startswith("mps_doctor/data/"):
            with open(path, encoding="utf-8") as handle:
                found |= numbers_in_code(handle.read(), name)
    return found


def prose_texts(entry):
    """The cause and fix of a raw catalogue entry, and those of its per-system variants."""
    texts = [entry.get("cause", ""), entry.get("fix", "")]
    for fields in (entry.get("on") or {}).values():
        texts += [fields.get("cause", ""), fields.get("fix", "")]
    return [" ".join(text) if isinstance(text, list) else text for text in texts]


def raw_entries():
    with open(CATALOGUE, encoding="utf-8") as handle:
        return json.load(handle)["errors"]


def test_no_release_number_is_written_in_the_packages_code_or_messages():
    unexplained = sorted(package_numbers() - set(ALLOWED_IN_CODE))
    assert not unexplained, "format these from the release table (versions.py), or allow them with a reason: %s" % (
        unexplained,)


def test_every_allowance_in_the_code_is_still_needed():
    assert not set(ALLOWED_IN_CODE) - package_numbers()


def test_the_finder_reads_strings_but_not_docstrings():
    source = ('"""Intel-Mac wheels stopped at 2.2.2."""\n'
              'def f():\n    """Python 3.12."""\n    return "the last Intel-Mac torch 2.2.2, for Python 3.12", 1.5\n')
    assert numbers_in_code(source, "x.py") == {("x.py", "2.2.2"), ("x.py", "3.12")}


def test_the_catalogue_speaks_of_the_current_table_only_through_placeholders():
    found = {(entry["id"], number) for entry in raw_entries() for text in prose_texts(entry)
             for number in NUMBER.findall(text)}
    unexplained = sorted(found - set(ALLOWED_IN_CATALOGUE))
    assert not unexplained, "write the table's facts as placeholders ({last_intel_torch}): %s" % (unexplained,)
    assert not set(ALLOWED_IN_CATALOGUE) - found


def test_every_placeholder_of_the_catalogue_is_a_table_fact_and_is_filled():
    words = table_words(load_releases())
    named = {name for entry in raw_entries() for text in prose_texts(entry) for name in PLACEHOLDER.findall(text)}
    assert named and named <= set(words)
    for error in load_catalogue():
        assert not PLACEHOLDER.search(error.cause + error.fix), error.id


def test_the_catalogue_names_the_tables_last_intel_release_and_mps_minimums():
    table = load_releases()
    errors = {error.id: error for error in load_catalogue()}
    assert "`torch==%s`" % table.last_intel_torch in errors["pip.torch-macos-x86-ceiling"].fix
    assert "`torch==%s`" % table.last_intel_torch in errors["uv.torch-macos-x86-no-wheel"].fix
    assert "(%s)" % mps_minimums(table) in errors["mps.macos-too-old"].fix


def row(torch, macos):
    return Release(torch, ">=3.9", "0.0", torch, macos, False, torch + ".*", "0.0.*", "sourced", ("test",))


def test_mps_minimums_are_runs_of_rows():
    table = ReleaseTable((row("1.12", "12.3"), row("2.0", "12.3"), row("2.5", "13.0"), row("2.6", None),
                          row("2.7", "13.0"), row("2.9", "14.0")), "2.11", "2.2.2", "0.17.2")
    assert mps_minimums(table) == "12.3 up to 2.0, 13.0 for 2.5-2.7, 14.0 from 2.9"
    assert mps_minimums(ReleaseTable((row("2.9", "14.0"),), "2.11", "2.2.2", "0.17.2")) == "14.0 for 2.9"
    assert with_table_facts("pin {last_intel_torch}; {other} and {", table) == "pin 2.2.2; {other} and {"


def test_the_intel_mac_ceiling_pattern_names_the_tables_last_intel_releases():
    """The catalogue's pattern cannot hold a placeholder: it must name the release table's last Intel-Mac torch and
    torchvision, so that a new table row is caught here."""
    table = load_releases()
    pattern = {error.id: error for error in load_catalogue()}["pip.torch-macos-x86-ceiling"].pattern.pattern
    for version in (table.last_intel_torch, table.last_intel_torchvision):
        assert re.escape(version) in pattern, version
