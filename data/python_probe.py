# jetgate's Python ML runtime probe (embedded in the jetgate binary).
#
# jetgate runs this as `<python> -B - STEP` with the script on stdin, once per
# step, each in its own process with a time limit, so an import that crashes
# or hangs loses only that step's facts:
#   basics               interpreter facts; torch and bitsandbytes package
#                        metadata (nothing imported)
#   torch                import torch; version, CUDA build, CUDA availability,
#                        device 0
#   bitsandbytes-native  import bitsandbytes; does its native library load?
#
# Each step prints ONE JSON document on stdout. Every sub-step catches its own
# exceptions and records them; before each risky sub-step a line
# "jetgate-step: NAME" goes to stderr, so when the process dies jetgate can say
# where. It must run on every Python a Jetson ships (3.6 on JetPack 4), so no
# syntax newer than 3.6. It never installs, upgrades or changes anything.
import json
import os
import sys

PROBE_FORMAT = 1
MAX_TEXT = 1000

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
    device["total_memory_bytes"] = attempt(
        errors, "torch.cuda.get_device_properties",
        lambda: int(torch.cuda.get_device_properties(0).total_memory))
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
    facts["cudnn_version"] = attempt(errors, "torch.backends.cudnn.version",
                                     lambda: torch.backends.cudnn.version())
    available = attempt(errors, "torch.cuda.is_available", lambda: bool(torch.cuda.is_available()))
    facts["cuda_available"] = available
    facts["device_count"] = None
    facts["device"] = None
    if available:
        facts["device_count"] = attempt(errors, "torch.cuda.device_count",
                                        lambda: int(torch.cuda.device_count()))
        facts["device"] = device_facts(torch, errors)
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


STEPS = {
    "basics": basics_step,
    "torch": torch_step,
    "bitsandbytes-native": bitsandbytes_native_step,
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
