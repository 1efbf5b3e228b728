# jetgate's Python ML runtime probe (embedded in the jetgate binary).
#
# jetgate runs this as `<python> -B - STEP` with the script on stdin, once per
# step, each in its own process with a time limit, so an import or a kernel
# that crashes or hangs loses only that step's facts:
#   basics                interpreter facts; torch and bitsandbytes package
#                         metadata (nothing imported)
#   torch                 import torch; version, CUDA build, CUDA availability,
#                         the architectures it was built for, device 0
#   torch-compute         real work on device 0 checked against the CPU: one of
#                         torch's own kernels, a matmul (cuBLAS), a conv2d
#                         (cuDNN when torch has it)
#   bitsandbytes-native   import bitsandbytes; does its native library load?
#   bitsandbytes-compute  4-bit (nf4, fp4) and 8-bit quantise/dequantise round
#                         trips and an int8 matmul on device 0, checked
#                         against torch on the CPU
#
# Each step prints ONE JSON document on stdout. Every sub-step catches its own
# exceptions and records them; before each risky sub-step a line
# "jetgate-step: NAME" goes to stderr, so when the process dies jetgate can say
# where. It must run on every Python a Jetson ships (3.6 on JetPack 4), so no
# syntax newer than 3.6. It never installs, upgrades or changes anything.
# The tolerances below are derived in docs/python-runtime.md.
import importlib
import json
import math
import os
import sys

PROBE_FORMAT = 1
MAX_TEXT = 1000

DEVICE = "cuda:0"
# torch checks: integer-valued inputs make every exact result an integer that
# fp32 holds exactly; the smallest wrong answer is off by 1.
EXACT_TOLERANCE = 0.01
# bitsandbytes round trips: a value x in a block whose largest magnitude is m
# comes back within (half the largest step of the code + SCALE_SLACK) * m.
HALF_STEP = {
    "nf4": (1.0 - 0.6961928009986877) / 2,  # NF4's widest step: -1 to -0.696
    "fp4": (12.0 - 8.0) / 12.0 / 2,          # FP4 (e2m1 / 12): 8/12 to 12/12
    "int8": 0.9 / 64 / 2,                    # dynamic 8-bit map: 64 steps over 0.1..1
}
SCALE_SLACK = 2.0 ** -20  # fp32 rounding of x * (1 / m) and of code * m
QUANT_ELEMENTS = 4096
FOUR_BIT_BLOCK = 64
EIGHT_BIT_BLOCK = 256
# int8 matmul: |out - A @ B.T| <= 2^-8 * (|A| @ |B|.T) + 2^-14 (fp16 output).
INT8_MATMUL_RELATIVE = 2.0 ** -8
INT8_MATMUL_ABSOLUTE = 2.0 ** -14

# A torch.py or bitsandbytes/ in the working directory must not shadow the
# installed packages.
sys.path[:] = [p for p in sys.path if p not in ("", ".")]


def trimmed(text):
    text = str(text).strip()
    if len(text) > MAX_TEXT:
        return text[:MAX_TEXT] + "... [trimmed]"
    return text


def error_text(exc):
    message = trimmed(exc)
    name = type(exc).__name__
    return name + ": " + message if message else name


def mark(step):
    sys.stderr.write("jetgate-step: " + step + "\n")
    sys.stderr.flush()


def attempt(errors, name, fn, default=None):
    """Runs one sub-step; an exception becomes errors[name] and default."""
    mark(name)
    try:
        return fn()
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from imports too
        errors[name] = error_text(exc)
        return default


def distribution_version(name):
    """Version from package metadata, without importing the package."""
    try:
        from importlib import metadata
    except ImportError:
        try:
            import importlib_metadata as metadata
        except ImportError:
            metadata = None
    if metadata is not None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None
    import pkg_resources  # Python 3.6/3.7 without the backport
    try:
        return pkg_resources.get_distribution(name).version
    except pkg_resources.DistributionNotFound:
        return None


def module_is_present(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


def basics_step():
    import platform
    errors = {}
    facts = {
        "executable": sys.executable or None,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine() or None,
    }
    facts["torch_module_found"] = attempt(errors, "find torch", lambda: module_is_present("torch"))
    facts["torch_metadata_version"] = attempt(
        errors, "torch metadata", lambda: distribution_version("torch"))
    facts["bitsandbytes_module_found"] = attempt(
        errors, "find bitsandbytes", lambda: module_is_present("bitsandbytes"))
    facts["bitsandbytes_metadata_version"] = attempt(
        errors, "bitsandbytes metadata", lambda: distribution_version("bitsandbytes"))
    facts["errors"] = errors
    return facts


def device_facts(torch, errors):
    device = {"index": 0}
    device["name"] = attempt(errors, "torch.cuda.get_device_name", lambda: str(torch.cuda.get_device_name(0)))
    capability = attempt(errors, "torch.cuda.get_device_capability",
                         lambda: torch.cuda.get_device_capability(0))
    device["capability"] = "%d.%d" % tuple(capability) if capability else None
    props = attempt(errors, "torch.cuda.get_device_properties", lambda: torch.cuda.get_device_properties(0))
    device["total_memory_bytes"] = None
    device["integrated"] = None
    if props is not None:
        device["total_memory_bytes"] = attempt(errors, "total_memory", lambda: int(props.total_memory))
        integrated = getattr(props, "is_integrated", None)  # 1 on a Jetson; older torch lacks it
        device["integrated"] = bool(integrated) if integrated is not None else None
    return device


def torch_step():
    errors = {}
    facts = {"imported": False}
    torch = attempt(errors, "import torch", lambda: __import__("torch"))
    if torch is None:
        facts["errors"] = errors
        return facts
    facts["imported"] = True
    facts["version"] = attempt(errors, "torch.__version__", lambda: str(torch.__version__))
    cuda = attempt(errors, "torch.version.cuda", lambda: torch.version.cuda)
    facts["cuda_version"] = str(cuda) if cuda is not None else None
    facts["cuda_build"] = cuda is not None if "torch.version.cuda" not in errors else None
    facts["cudnn_available"] = attempt(errors, "torch.backends.cudnn.is_available",
                                       lambda: bool(torch.backends.cudnn.is_available()))
    facts["cudnn_version"] = attempt(errors, "torch.backends.cudnn.version",
                                     lambda: torch.backends.cudnn.version())
    available = attempt(errors, "torch.cuda.is_available", lambda: bool(torch.cuda.is_available()))
    facts["cuda_available"] = available
    facts["device_count"] = None
    facts["device"] = None
    facts["arch_list"] = None
    if available:
        facts["device_count"] = attempt(errors, "torch.cuda.device_count",
                                        lambda: int(torch.cuda.device_count()))
        facts["device"] = device_facts(torch, errors)
        facts["arch_list"] = attempt(errors, "torch.cuda.get_arch_list",
                                     lambda: [str(a) for a in torch.cuda.get_arch_list()])
    facts["errors"] = errors
    return facts


# --- real work on the device, checked against the CPU ---------------------------

def small_integers(count, seed, bound):
    """Deterministic integers in [-bound, bound] (a linear congruential generator)."""
    state = seed
    values = []
    for _ in range(count):
        state = (state * 1103515245 + 12345) % 2147483648
        values.append((state >> 8) % (2 * bound + 1) - bound)
    return values


def shaped(values, shape):
    """Nested lists of the given shape from a flat list."""
    if len(shape) == 1:
        return list(values)
    step = len(values) // shape[0]
    return [shaped(values[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def flat(nested):
    if not isinstance(nested, list):
        return [nested]
    out = []
    for item in nested:
        out.extend(flat(item))
    return out


def finite_or_none(x):
    return x if x == x and x not in (float("inf"), float("-inf")) else None


def compare(actual, expected, tolerances, tolerance):
    """|actual - expected| element by element against its tolerance. A NaN or
    an infinity from the device counts as beyond the tolerance."""
    if len(actual) != len(expected):
        raise ValueError("the device returned %d values, the CPU %d" % (len(actual), len(expected)))
    worst_error, worst_ratio, beyond, non_finite = 0.0, 0.0, 0, 0
    for value, reference, allowed in zip(actual, expected, tolerances):
        error = abs(float(value) - float(reference))
        if finite_or_none(error) is None:
            beyond += 1
            non_finite += 1
            continue
        ratio = error / allowed
        worst_error = max(worst_error, error)
        worst_ratio = max(worst_ratio, ratio)
        if not ratio <= 1.0:
            beyond += 1
    return {"ran": True, "elements": len(expected), "max_abs_error": worst_error,
            "max_error_ratio": worst_ratio if non_finite == 0 else None,
            "beyond_tolerance": beyond, "non_finite": non_finite, "tolerance": tolerance, "error": None}


def run_check(errors, name, fn):
    result = attempt(errors, name, fn)
    if result is None:
        return {"ran": False, "error": errors.get(name, "no result")}
    return result


def exact_fp32(torch):
    """TF32 would round conv inputs inside FFT/Winograd algorithms; the checks
    want fp32 arithmetic (this process only)."""
    for owner in (getattr(getattr(torch.backends, "cuda", None), "matmul", None), torch.backends.cudnn):
        if owner is not None and hasattr(owner, "allow_tf32"):
            owner.allow_tf32 = False


def elementwise_check(torch):
    # torch's own kernels (not cuBLAS or cuDNN): what a wheel built without
    # this GPU's architecture lacks, even when tensors can be copied to it.
    cpu = torch.tensor(small_integers(4096, 11, 2), dtype=torch.float32)
    result = cpu.to(DEVICE) * 3.0 - 2.0
    torch.cuda.synchronize()
    expected = cpu * 3.0 - 2.0
    n = len(expected.tolist())
    return compare(flat(result.cpu().tolist()), flat(expected.tolist()), [EXACT_TOLERANCE] * n, EXACT_TOLERANCE)


def matmul_check(torch):
    a = torch.tensor(shaped(small_integers(64 * 96, 21, 2), (64, 96)), dtype=torch.float32)
    b = torch.tensor(shaped(small_integers(96 * 80, 22, 2), (96, 80)), dtype=torch.float32)
    result = torch.matmul(a.to(DEVICE), b.to(DEVICE))
    torch.cuda.synchronize()
    expected = flat(torch.matmul(a, b).tolist())
    return compare(flat(result.cpu().tolist()), expected, [EXACT_TOLERANCE] * len(expected), EXACT_TOLERANCE)


def conv_check(torch):
    functional = importlib.import_module("torch.nn.functional")
    x = torch.tensor(shaped(small_integers(3 * 16 * 16, 31, 2), (1, 3, 16, 16)), dtype=torch.float32)
    w = torch.tensor(shaped(small_integers(8 * 3 * 3 * 3, 32, 2), (8, 3, 3, 3)), dtype=torch.float32)
    cudnn = torch.backends.cudnn
    backend = "cudnn" if bool(cudnn.is_available()) and bool(cudnn.enabled) else "native"
    result = functional.conv2d(x.to(DEVICE), w.to(DEVICE), padding=1)
    torch.cuda.synchronize()
    expected = flat(functional.conv2d(x, w, padding=1).tolist())
    checked = compare(flat(result.cpu().tolist()), expected, [EXACT_TOLERANCE] * len(expected), EXACT_TOLERANCE)
    checked["backend"] = backend
    return checked


def torch_compute_step():
    errors = {}
    facts = {"elementwise": None, "matmul": None, "conv": None}
    torch = attempt(errors, "import torch", lambda: __import__("torch"))
    if torch is not None:
        attempt(errors, "fp32 arithmetic", lambda: exact_fp32(torch))
        facts["elementwise"] = run_check(errors, "elementwise kernel", lambda: elementwise_check(torch))
        facts["matmul"] = run_check(errors, "matmul (cuBLAS)", lambda: matmul_check(torch))
        facts["conv"] = run_check(errors, "conv2d", lambda: conv_check(torch))
    facts["errors"] = errors
    return facts


def describe_native_library(lib):
    """How bitsandbytes.cextension reports its native library, across versions."""
    if lib is None:  # 0.43/0.44 on a load failure; older ones without a library
        return False, None, None, "bitsandbytes.cextension.lib is None: the native library did not load"
    if type(lib).__name__ == "ErrorHandlerMockBNBNativeLibrary":  # 0.46+ on a load failure
        # Its __getattr__ answers every name, so read only its own attributes.
        message = lib.__dict__.get("error_msg") or "native library did not load"
        return False, None, None, trimmed(message)
    cuda = lib.__dict__.get("compiled_with_cuda", getattr(type(lib), "compiled_with_cuda", None))
    handle = lib.__dict__.get("_lib", lib)  # BNBNativeLibrary wraps a ctypes.CDLL
    path = getattr(handle, "_name", None)
    library = os.path.basename(path) if isinstance(path, str) else None
    return True, (bool(cuda) if cuda is not None else None), library, None


def bitsandbytes_native_step():
    errors = {}
    facts = {"loads": False, "cuda": None, "library": None, "backend": None, "error": None}
    bnb = attempt(errors, "import bitsandbytes", lambda: __import__("bitsandbytes"))
    if bnb is None:
        facts["error"] = errors.get("import bitsandbytes")
        facts["errors"] = errors
        return facts
    # A source checkout on PYTHONPATH has no package metadata; the module says its version.
    version = getattr(bnb, "__version__", None)
    facts["module_version"] = version if isinstance(version, str) else None
    ext = attempt(errors, "bitsandbytes.cextension", lambda: __import__("bitsandbytes.cextension").cextension)
    if ext is not None:
        facts["backend"] = getattr(ext, "BNB_BACKEND", None)
        compiled = getattr(ext, "COMPILED_WITH_CUDA", None)  # before 0.43
        described = attempt(errors, "bitsandbytes native library",
                            lambda: describe_native_library(getattr(ext, "lib", None)))
        if described is not None:
            facts["loads"], facts["cuda"], facts["library"], facts["error"] = described
            if facts["cuda"] is None and compiled is not None:
                facts["cuda"] = bool(compiled)
    if facts["error"] is None and errors:
        facts["error"] = "; ".join(errors.values())
    facts["errors"] = errors
    return facts


def quantization_input():
    """4096 values; each 64-value block has its own scale (0.25 .. 8), so the
    per-block absmax differs from block to block."""
    values = []
    for i in range(QUANT_ELEMENTS):
        block = i // FOUR_BIT_BLOCK
        values.append(math.sin(0.37 * i + 0.5 * block) * 0.25 * (1 + block % 32))
    return values


def round_trip_result(reference, restored, blocksize, kind, packed, expected_bytes):
    tolerances = []
    for start in range(0, len(reference), blocksize):
        block = reference[start:start + blocksize]
        absmax = max(abs(v) for v in block)
        tolerances.extend([(HALF_STEP[kind] + SCALE_SLACK) * absmax] * len(block))
    checked = compare(restored, reference, tolerances, HALF_STEP[kind] + SCALE_SLACK)
    checked["blocksize"] = blocksize
    checked["packed_bytes"] = int(packed.numel()) * int(packed.element_size())
    checked["expected_packed_bytes"] = expected_bytes
    return checked


def four_bit_check(torch, functional, quant_type):
    cpu = torch.tensor(quantization_input(), dtype=torch.float32)
    packed, state = functional.quantize_4bit(cpu.to(DEVICE), blocksize=FOUR_BIT_BLOCK, compress_statistics=False,
                                             quant_type=quant_type)
    restored = functional.dequantize_4bit(packed, quant_state=state)
    torch.cuda.synchronize()
    reference = flat(cpu.tolist())  # the fp32 values the GPU was given
    return round_trip_result(reference, flat(restored.float().cpu().tolist()), FOUR_BIT_BLOCK, quant_type,
                             packed, len(reference) // 2)


def eight_bit_check(torch, functional):
    cpu = torch.tensor(quantization_input(), dtype=torch.float32)
    packed, state = functional.quantize_blockwise(cpu.to(DEVICE), blocksize=EIGHT_BIT_BLOCK)
    # Before 0.43 the state is (absmax, code) and the blocksize must be repeated.
    restored = functional.dequantize_blockwise(packed, quant_state=state, blocksize=EIGHT_BIT_BLOCK)
    torch.cuda.synchronize()
    reference = flat(cpu.tolist())
    return round_trip_result(reference, flat(restored.float().cpu().tolist()), EIGHT_BIT_BLOCK, "int8",
                             packed, len(reference))


def grid_matrix(rows, cols, seed):
    """Values k/128, integer k in [-127, 127], with +-127/128 in every row:
    int8 row-wise quantisation (127 / absmax = 128) is then exact."""
    ks = small_integers(rows * cols, seed, 127)
    for r in range(rows):
        ks[r * cols + r % cols] = 127 if r % 2 == 0 else -127
    return shaped([k / 128.0 for k in ks], (rows, cols))


def int8_matmul_check(torch, bnb):
    a_values, b_values = grid_matrix(32, 64, 41), grid_matrix(48, 64, 42)
    a = torch.tensor(a_values, dtype=torch.float16).to(DEVICE)
    b = torch.tensor(b_values, dtype=torch.float16).to(DEVICE)
    # LLM.int8() without outlier decomposition: A @ B.T in int8, fp16 out.
    result = bnb.matmul(a, b, threshold=0.0)
    torch.cuda.synchronize()
    a_cpu = torch.tensor(a_values, dtype=torch.float32)
    b_cpu = torch.tensor(b_values, dtype=torch.float32)
    expected = flat(torch.matmul(a_cpu, b_cpu.t()).tolist())
    magnitude = flat(torch.matmul(a_cpu.abs(), b_cpu.abs().t()).tolist())
    tolerances = [INT8_MATMUL_RELATIVE * m + INT8_MATMUL_ABSOLUTE for m in magnitude]
    return compare(flat(result.float().cpu().tolist()), expected, tolerances, INT8_MATMUL_RELATIVE)


def bitsandbytes_compute_step():
    errors = {}
    facts = {"nf4": None, "fp4": None, "int8_blockwise": None, "int8_matmul": None}
    torch = attempt(errors, "import torch", lambda: __import__("torch"))
    bnb, functional = None, None
    if torch is not None:
        bnb = attempt(errors, "import bitsandbytes", lambda: __import__("bitsandbytes"))
    if bnb is not None:
        functional = attempt(errors, "import bitsandbytes.functional",
                             lambda: importlib.import_module("bitsandbytes.functional"))
    if functional is not None:
        facts["nf4"] = run_check(errors, "bitsandbytes nf4 round trip",
                                 lambda: four_bit_check(torch, functional, "nf4"))
        facts["fp4"] = run_check(errors, "bitsandbytes fp4 round trip",
                                 lambda: four_bit_check(torch, functional, "fp4"))
        facts["int8_blockwise"] = run_check(errors, "bitsandbytes 8-bit blockwise round trip",
                                            lambda: eight_bit_check(torch, functional))
        facts["int8_matmul"] = run_check(errors, "bitsandbytes int8 matmul",
                                         lambda: int8_matmul_check(torch, bnb))
    facts["errors"] = errors
    return facts


STEPS = {
    "basics": basics_step,
    "torch": torch_step,
    "torch-compute": torch_compute_step,
    "bitsandbytes-native": bitsandbytes_native_step,
    "bitsandbytes-compute": bitsandbytes_compute_step,
}


def main():
    step = sys.argv[1] if len(sys.argv) > 1 else "basics"
    # Libraries print banners and warnings on stdout, C code included; keep
    # the real stdout for the one JSON document and send the rest to stderr.
    result_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if step in STEPS:
        document = {"jetgate_python_probe": PROBE_FORMAT, "step": step, "facts": STEPS[step]()}
    else:
        document = {"jetgate_python_probe": PROBE_FORMAT, "step": step,
                    "error": "unknown step " + repr(step)}
    mark("done")
    with os.fdopen(result_fd, "w") as out:
        out.write(json.dumps(document, ensure_ascii=True, sort_keys=True))
        out.write("\n")


if __name__ == "__main__":
    main()
