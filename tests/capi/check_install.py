#!/usr/bin/env python3
"""`cmake --install` into a temporary prefix, then what a user does with it:
- builds examples/score.c with `cc score.c $(pkg-config --cflags --libs libvmaf)` only
  (PKG_CONFIG_PATH at the prefix), checks it links the installed libvmaf.so.3, runs it on the
  fixture path_576x324_420p8 and compares its pooled VMAF with the golden value (../shared);
- checks that libvmaf.so.3 exports only vmaf_* functions, among them every call FFmpeg 5.1's
  libvmaf filter makes;
- configures and builds a find_package(vmafx) consumer using vmafx::vmafx and vmafx::libvmaf;
- where the build has the Python package, imports the installed one with Debian's Python and
  scores the shipped sample with it.

usage: check_install.py BUILD_DIR SOURCE_DIR CMAKE SANITIZED
Exit 77 (skipped) in a sanitized build (the installed library then needs the sanitizer runtimes
loaded first, which a plain `cc` program does not do), or when ../shared or the fixtures are
absent (after the install and build checks)."""
import json, os, shlex, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from skip_missing import missing  # noqa: E402

FFMPEG_CALLS = ["vmaf_init", "vmaf_close", "vmaf_version", "vmaf_picture_alloc", "vmaf_picture_unref",
                "vmaf_read_pictures", "vmaf_feature_dictionary_set", "vmaf_use_feature", "vmaf_model_load",
                "vmaf_model_load_from_path", "vmaf_model_feature_overload", "vmaf_use_features_from_model",
                "vmaf_model_collection_load_from_path", "vmaf_use_features_from_model_collection",
                "vmaf_score_pooled", "vmaf_write_output", "vmaf_model_destroy"]

CONSUMER_CMAKE = """cmake_minimum_required(VERSION 3.25)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(vmafx REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE vmafx::vmafx vmafx::libvmaf)
"""
CONSUMER_MAIN = """#include <cstdio>
#include <cstring>
#include <libvmaf.h>
#include "model/builtin_models.hpp"
int main() {
    std::printf("%zu built-in models, libvmaf %s\\n", vmafx::builtin_models().size(), vmaf_version());
    return vmafx::builtin_models().empty() || std::strncmp(vmaf_version(), "3.", 2) != 0;
}
"""


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def main():
    build, source, cmake, sanitized = sys.argv[1:5]
    build, source = os.path.realpath(build), os.path.realpath(source)
    if sanitized.upper() in ("ON", "1", "TRUE"):
        print("skipped: a sanitized libvmaf.so needs the ASan runtime loaded first; a program built with plain "
              "`cc $(pkg-config ...)` does not load it (capi_errors and capi_vs_cli cover the API there)")
        return 77
    shared = os.environ.get("VMAFX_SHARED", os.path.join(os.path.dirname(source), "shared"))
    fixtures = os.environ.get("VMAFX_FIXTURES", os.path.join(source, ".fixtures"))
    with tempfile.TemporaryDirectory(prefix="vmafx_install_") as tmp:
        prefix = os.path.join(tmp, "prefix")
        run([cmake, "--install", build, "--prefix", prefix], stdout=subprocess.DEVNULL)
        libdirs = [d for d in ("lib", "lib64") if os.path.isfile(os.path.join(prefix, d, "pkgconfig", "libvmaf.pc"))]
        if not libdirs:
            print("no lib/pkgconfig/libvmaf.pc under the prefix")
            return 1
        libdir = os.path.join(prefix, libdirs[0])
        for f in ("bin/vmafx", "include/libvmaf/libvmaf.h", "include/libvmaf/model.h", "include/libvmaf/picture.h",
                  "include/libvmaf/feature.h", "include/vmafx/engine/engine.hpp"):
            if not os.path.exists(os.path.join(prefix, f)):
                print(f"missing after install: {f}")
                return 1
        for f in ("libvmaf.so", "libvmaf.so.3", "libvmafx.a", "cmake/vmafx/vmafxConfig.cmake"):
            if not os.path.exists(os.path.join(libdir, f)):
                print(f"missing after install: {libdir}/{f}")
                return 1
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"))
        version = run(["pkg-config", "--modversion", "libvmaf"], env=env, capture_output=True, text=True).stdout.strip()
        if not version.startswith("3."):
            print(f"libvmaf.pc: version {version}, expected 3.x")
            return 1
        if run(["pkg-config", "--atleast-version=2.0.0", "libvmaf"], env=env).returncode:
            return 1
        flags = run(["pkg-config", "--cflags", "--libs", "libvmaf"], env=env, capture_output=True, text=True).stdout
        exe = os.path.join(tmp, "score")
        run(["cc", "-std=c11", "-Wall", "-Werror", os.path.join(source, "examples", "score.c"), "-o", exe]
            + shlex.split(flags))
        needed = run(["readelf", "-d", exe], capture_output=True, text=True).stdout
        if "[libvmaf.so.3]" not in needed:
            print("the example does not link libvmaf.so.3")
            return 1
        symbols = run(["nm", "-D", "--defined-only", os.path.join(libdir, "libvmaf.so.3")], capture_output=True,
                      text=True).stdout.split("\n")
        exported = [l.split()[-1] for l in symbols if len(l.split()) == 3 and l.split()[1] in "TWDBRVi"]
        stray = [s for s in exported if not s.startswith("vmaf_")]
        if stray:
            print(f"libvmaf.so.3 exports more than vmaf_*: {stray[:10]}")
            return 1
        missing = [c for c in FFMPEG_CALLS if c not in exported]
        if missing:
            print(f"libvmaf.so.3 lacks calls FFmpeg makes: {missing}")
            return 1
        # libvmaf_cuda.h and its four calls together (a CUDA build), or neither, as upstream: FFmpeg's
        # configure enables its libvmaf_cuda filter when the header compiles and
        # vmaf_cuda_state_init links.
        cuda_calls = ["vmaf_cuda_state_init", "vmaf_cuda_import_state", "vmaf_cuda_preallocate_pictures",
                      "vmaf_cuda_fetch_preallocated_picture"]
        cuda_header = os.path.exists(os.path.join(prefix, "include/libvmaf/libvmaf_cuda.h"))
        cuda_exported = [c for c in cuda_calls if c in exported]
        if cuda_exported != (cuda_calls if cuda_header else []):
            print(f"libvmaf_cuda.h {'installed' if cuda_header else 'absent'} but CUDA calls exported: {cuda_exported}")
            return 1
        print(f"libvmaf.so.3 exports {len(exported)} functions, all vmaf_*"
              f"{' (with libvmaf_cuda.h)' if cuda_header else ''}")

        consumer = os.path.join(tmp, "consumer")
        os.mkdir(consumer)
        open(os.path.join(consumer, "CMakeLists.txt"), "w").write(CONSUMER_CMAKE)
        open(os.path.join(consumer, "main.cpp"), "w").write(CONSUMER_MAIN)
        run([cmake, "-S", consumer, "-B", os.path.join(consumer, "build"), f"-DCMAKE_PREFIX_PATH={prefix}",
             "-DCMAKE_BUILD_TYPE=Release"], stdout=subprocess.DEVNULL)
        run([cmake, "--build", os.path.join(consumer, "build")], stdout=subprocess.DEVNULL)
        run([os.path.join(consumer, "build", "consumer")], env=dict(os.environ, LD_LIBRARY_PATH=libdir))

        # The Python package, where this build has it (cmake/python.cmake): Debian's Python imports
        # it from the prefix and scores the shipped sample (the README's pooled VMAF).
        sites = [os.path.join(prefix, "lib", d, "dist-packages") for d in os.listdir(os.path.join(prefix, "lib"))
                 if d.startswith("python3.")] if os.path.isdir(os.path.join(prefix, "lib")) else []
        sites = [d for d in sites if os.path.isfile(os.path.join(d, "vmafx", "__init__.py"))]
        if sites:
            code = ("import sys, vmafx; r = vmafx.score(sys.argv[1], sys.argv[2]); "
                    "print(vmafx.__file__); print('%.6f' % r.models[0]['mean'])")
            out = run(["/usr/bin/python3", "-B", "-c", code, os.path.join(source, "samples", "path_576x324_ref.y4m"),
                       os.path.join(source, "samples", "path_576x324_dist.y4m")],
                      env=dict(os.environ, PYTHONPATH=sites[0]), capture_output=True, text=True).stdout.split()
            print(f"installed Python package {out[0]}: pooled VMAF {out[1]}")
            if not out[0].startswith(prefix) or out[1] != "66.246113":
                return 1

        golden = os.path.join(shared, "golden", "path_576x324_420p8.json")
        fixture = os.path.join(fixtures, "path_576x324_420p8")
        absent = [f for f in (golden, os.path.join(fixture, "ref.y4m"), os.path.join(fixture, "dist.y4m"))
                  if not os.path.isfile(f)]
        if absent:
            return missing(f"the scoring run's {', '.join(absent)} absent")
        run_env = dict(os.environ, LD_LIBRARY_PATH=libdir)
        out = run([exe, os.path.join(fixture, "ref.y4m"), os.path.join(fixture, "dist.y4m")], capture_output=True,
                  text=True, env=run_env).stdout
        pooled = [l for l in out.splitlines() if l.startswith("pooled vmaf mean ")]
        frames = [l for l in out.splitlines() if l.startswith("frame ")]
        want = float(json.load(open(golden))["result"]["pooled_metrics"]["vmaf"]["mean"])
        got = float(pooled[0].split()[3]) if pooled else None
        print(f"example: {len(frames)} frames, pooled VMAF {got!r}; golden {want!r}")
        if got != want or len(frames) != 32:
            return 1
    print("install, pkg-config example, find_package consumer: all good")
    return 0


if __name__ == "__main__":
    sys.exit(main())
