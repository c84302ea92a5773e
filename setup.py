"""What pyproject.toml cannot state without setuptools' experimental tables.

IBU's update loop and local hashing's xxh32 in C (privest/_kernel.c, no numpy headers: the buffer protocol).
Optional: where no C compiler is found the build goes on without it, and numpy runs the same iteration
(``privest.estimators.COMPILED_KERNEL`` says which) and the same hashes. -ffp-contract=off: no fused multiply-add,
so its products give the same bits on every CPU.

The study layer in an editable install only. The wheel and sdist hold the library (pyproject.toml's packages); an
editable install of the checkout (``pip install -e .``: the Makefile's .venv, envs/privest.yaml) also maps
``privest_studies`` to the checkout, for the Snakefile and scripts/, through the same finder that maps ``privest``.
"""

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.editable_wheel import editable_wheel


class EditableWithStudies(editable_wheel):
    """``pip install -e .``: privest and privest_studies (a namespace package), both from the checkout."""

    def run(self):
        studies = find_namespace_packages(include=["privest_studies", "privest_studies.*"])
        self.distribution.packages = [*self.distribution.packages, *studies]
        super().run()


setup(
    ext_modules=[Extension("privest._kernel", ["privest/_kernel.c"], optional=True,
                           extra_compile_args=["-O3", "-ffp-contract=off"])],
    cmdclass={"editable_wheel": EditableWithStudies},
)
