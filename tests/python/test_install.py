"""`pip install --no-build-isolation .` (docs/python.md), offline, into a virtual environment that
sees Debian's packages: the package's files (setup.py, pyproject.toml, setup.cfg, CMakeLists.txt
for the version, python/) are copied to a temporary folder and installed from there, the native
module built in this checkout's CMake build (VMAFX_BUILD_DIR, which ctest sets: already built,
so nothing is compiled); the installed package then scores the shipped sample with the CLI's
values. A clean checkout's `pip install` configures and builds build-python/ itself."""
import os
import shutil
import subprocess
import venv

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_pip_install_from_the_checkouts_files(tmp_path):
    build = os.environ.get("VMAFX_BUILD_DIR")
    if not build or not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        pytest.skip("skipped: VMAFX_BUILD_DIR (a built CMake folder) is not set")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "setup.cfg", "CMakeLists.txt"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    shutil.copytree(os.path.join(ROOT, "python"), src / "python",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    python = str(env_dir / "bin" / "python")
    env = dict(os.environ, VMAFX_BUILD_DIR=build, PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)  # the installed package, not build/python
    # Debian's pip (visible through the system site-packages) installs into the environment.
    r = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", str(src)],
                       capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    code = ("import sys, vmafx; r = vmafx.score(sys.argv[1], sys.argv[2]); "
            "print(vmafx.__file__); print(vmafx.__version__); print('%.6f' % r.models[0]['mean'])")
    out = subprocess.run([python, "-c", code, os.path.join(ROOT, "samples", "path_576x324_ref.y4m"),
                          os.path.join(ROOT, "samples", "path_576x324_dist.y4m")],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    location, version, mean = out.stdout.split()
    assert location.startswith(str(env_dir)), location
    assert version == "0.1.0"
    assert mean == "66.246113"
