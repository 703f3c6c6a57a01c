"""Builds torch_hal with CMake: the HAL core, each adapter, and the PyTorch extension torch_hal._C.

`pip install --no-build-isolation -e .` (or `python setup.py develop`) configures CMake once into
build/cmake-<python tag> and rebuilds incrementally afterwards. The shared libraries land in
torch_hal/lib/ (adapters, core) and torch_hal/ (the extension), which is where the package loads them.
"""
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Runs CMake for the whole project; setuptools only decides where the results go."""

    def build_extension(self, ext):
        # The torch that is installed: its CMake config and its C++ ABI. Autoload is off so that an
        # older torch_hal build already installed cannot get in the way of building the new one.
        os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
        import torch

        ext_path = Path(self.get_ext_fullpath(ext.name)).resolve()
        # CMake always builds into the source package (what an editable install imports); a regular
        # install then copies the results to where setuptools packs them.
        package_dir = ROOT / "torch_hal"
        tag = f"py{sys.version_info.major}{sys.version_info.minor}-torch{torch.__version__.split('+')[0]}"
        build_dir = ROOT / "build" / f"cmake-{tag}"
        build_dir.mkdir(parents=True, exist_ok=True)

        config = os.environ.get("TORCH_HAL_BUILD_TYPE", "Release")
        configure = [
            "cmake", str(ROOT),
            f"-DCMAKE_BUILD_TYPE={config}",
            f"-DCMAKE_PREFIX_PATH={torch.utils.cmake_prefix_path}",
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DTORCH_HAL_PACKAGE_DIR={package_dir}",
            f"-DTORCH_HAL_EXT_SUFFIX={sysconfig.get_config_var('EXT_SUFFIX')}",
            f"-DTORCH_HAL_BUILD_TESTS={os.environ.get('TORCH_HAL_BUILD_TESTS', 'ON')}",
        ]
        # Extra CMake arguments, e.g. a host-only build for quick work on the core:
        # TORCH_HAL_CMAKE_ARGS="-DCMAKE_CUDA_COMPILER=NOTFOUND -DHAL_HIPCC=HAL_HIPCC-NOTFOUND"
        configure += shlex.split(os.environ.get("TORCH_HAL_CMAKE_ARGS", ""))
        if (build_dir / "CMakeCache.txt").exists() is False or os.environ.get("TORCH_HAL_RECONFIGURE"):
            subprocess.check_call(configure, cwd=build_dir)
        else:  # cheap re-run keeps the cache, picks up new files
            subprocess.check_call(configure, cwd=build_dir, stdout=subprocess.DEVNULL)
        jobs = os.environ.get("MAX_JOBS", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", ".", "--parallel", jobs], cwd=build_dir)
        # build/current names the folder of the last build, for scripts/run_tests.sh (ctest runs there).
        current = ROOT / "build" / "current"
        if current.is_symlink() or current.exists():
            current.unlink()
        current.symlink_to(build_dir.name)
        if ext_path.parent != package_dir:
            ext_path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(package_dir / ext_path.name, ext_path)
            shutil.copytree(package_dir / "lib", ext_path.parent / "lib", dirs_exist_ok=True)
            shutil.copytree(package_dir / "plugins", ext_path.parent / "plugins", dirs_exist_ok=True)


setup(
    name="torch_hal",
    version="0.1.0",
    description="One PyTorch device, hal, for accelerators of every vendor",
    packages=find_packages(include=["torch_hal", "torch_hal.*"]),
    py_modules=["torch_hal_autoload"],
    package_data={"torch_hal": ["lib/*.so", "plugins/*.so", "*.so"]},
    ext_modules=[CMakeExtension("torch_hal._C")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.10",
    entry_points={
        # PyTorch imports this at `import torch` (TORCH_DEVICE_BACKEND_AUTOLOAD=0 turns it off).
        "torch.backends": ["torch_hal = torch_hal_autoload:load"],
        "console_scripts": ["torch-hal = torch_hal.__main__:main"],
    },
    zip_safe=False,
)
