"""Builds the Python package vmafx for pip (`pip install --no-build-isolation .`; docs/python.md):
the pure-Python files of python/vmafx and the native module vmafx._vmafx, which the project's
CMake builds (target vmafx_python, cmake/python.cmake) for the Python running pip.

VMAFX_BUILD_DIR: an existing CMake build folder of this checkout to build the module in (the
module is rebuilt there only where out of date); without it, build-python/ beside this file,
configured as a Release build for this Python. setuptools' own files go under build-python/ too
(setup.cfg), not into CMake's build/."""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    text = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    return re.search(r"project\(vmafx\s+VERSION\s+([0-9.]+)", text).group(1)


class CMakeModule(Extension):
    def __init__(self):
        super().__init__("vmafx._vmafx", sources=[])


class CMakeBuild(build_ext):
    """Builds vmafx._vmafx with CMake and puts it where setuptools packs the extension."""

    def build_extension(self, ext):
        build = os.environ.get("VMAFX_BUILD_DIR") or os.path.join(ROOT, "build-python", "cmake")
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DVMAFX_PYTHON=ON", f"-DVMAFX_PYTHON_EXECUTABLE={sys.executable}",
                                   "-DVMAFX_BUILD_TESTS=OFF", "-DVMAFX_BUILD_BENCH=OFF"])
        subprocess.check_call(["cmake", "--build", build, "--target", "vmafx_python"])
        built = glob.glob(os.path.join(build, "python", "vmafx", "_vmafx*.so"))
        if len(built) != 1:
            raise RuntimeError(f"{build}: expected one python/vmafx/_vmafx*.so after the build, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="vmafx",
    version=version(),
    description="Perceptual video quality (VMAF), bit-identical to Netflix libvmaf 3.2.0",
    license="BSD-2-Clause-Patent",
    packages=["vmafx"],
    package_dir={"": "python"},
    ext_modules=[CMakeModule()],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy", "pandas"],
    extras_require={"plot": ["matplotlib"], "progress": ["tqdm"], "report": ["plotly", "pillow"],
                    "batch": ["distributed"]},
    entry_points={"console_scripts": ["vmafx-batch = vmafx.batch:main"]},
)
