"""Sphinx configuration of privest's documentation site (make docs; about.md says what each piece does)."""

import inspect
import types
from pathlib import Path

import privest

ROOT = Path(__file__).resolve().parents[2]

project = "privest"
author = "the privest authors"
copyright = "privest's authors; MIT licence"
version = release = privest.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    # The guide's formulas ($...$, $$...$$ through myst's dollarmath) are typeset by MathJax 3 in the reader's browser.
    # sphinx-mathjax-offline (the docs extra) ships MathJax 3.2.2 and copies it into _static/mathjax/ of every build,
    # and points mathjax_path there: the site needs no CDN when it is read, and works from a file:// copy or a machine
    # without the internet. The alternatives were worse here: sphinx.ext.imgmath needs LaTeX and dvipng on the building
    # machine (not installed, and not a pip package); sphinxcontrib-katex prerenders through Node.js, or else loads
    # KaTeX from a CDN at view time.
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
templates_path = ["_templates"]

# The API reference: a page per name of the autosummary lists in api/ (tests/test_docs.py checks them against __all__).
autosummary_generate = True
autodoc_default_options = {"members": False}
autodoc_member_order = "bysource"


def documented() -> dict[str, object]:
    """Full name -> object of every name the API pages list: privest.__all__ and the __all__ of each module it names."""
    names = {}
    for name in privest.__all__:
        obj = getattr(privest, name)
        if isinstance(obj, types.ModuleType):
            names |= {f"{obj.__name__}.{member}": getattr(obj, member) for member in obj.__all__}
        else:
            names[f"privest.{name}"] = obj
    return names


def reexported_classes() -> dict[str, str]:
    """A class listed under several names is documented once, under its own module's name (else under the longest
    public module its own lies in: ``privest.estimators.IbuResult``); its other pages name that one. Two full
    descriptions would both claim the class's canonical name, which Sphinx reports as a duplicate."""
    by_class = {}
    for fullname, obj in documented().items():
        if inspect.isclass(obj):
            by_class.setdefault(obj, []).append(fullname)
    pointers = {}
    for cls, fullnames in by_class.items():
        own = f"{cls.__module__}.{cls.__qualname__}"
        modules = {fullname: fullname.rsplit(".", 1)[0] for fullname in fullnames}
        main = own if own in fullnames else max(
            fullnames, key=lambda f: (cls.__module__.startswith(modules[f]), len(modules[f])))
        pointers |= {fullname: main for fullname in fullnames if fullname != main}
    return pointers


autosummary_context = {"reexported": reexported_classes()}
numpydoc_show_class_members = False  # the class template lists the members (autodoc :members:)
numpydoc_class_members_toctree = False

# The gallery: every script of examples/ runs at build time; its page shows what it printed.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # run every example, not only plot_*.py
    "abort_on_example_error": True,
    "download_all_examples": False,
    "image_scrapers": ("matplotlib",),
    "remove_config_comments": True,
}

# The Markdown pages (myst-parser): anchors for headings down to ###, so that page.md#a-heading links work; $...$ and
# $$...$$ are maths (dollarmath).
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

html_theme = "pydata_sphinx_theme"
html_title = f"privest {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
}
# The left sidebar: a section's pages (the theme's sidebar-nav-bs: the guide's, the gallery's, the API's) on the pages
# of a section; the whole site's sections on the two pages outside any (_templates/site-nav.html).
html_sidebars = {"index": ["site-nav"], "about": ["site-nav"]}
# Wide tables and code scroll sideways inside their own box instead of running past the page's edge.
html_static_path = ["_static"]
html_css_files = ["privest.css"]
# The theme's light/dark mode before a reader picks one: "auto" follows the browser. Unset, the theme's script
# reports "invalid theme mode" as a console error on a first visit.
html_context = {"default_mode": "auto"}
