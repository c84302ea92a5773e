"""The one part of the build that pyproject.toml cannot state without setuptools' experimental tables: IBU's update
loop in C (privest/_kernel.c, no numpy headers: the buffer protocol). Optional: where no C compiler is found the build
goes on without it, and numpy runs the same iteration (``privest.estimators.COMPILED_KERNEL`` says which).
-ffp-contract=off: no fused multiply-add, so its products give the same bits on every CPU."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("privest._kernel", ["privest/_kernel.c"], optional=True,
                             extra_compile_args=["-O3", "-ffp-contract=off"])])
