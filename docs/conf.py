"""Sphinx configuration for the docs site. Sources are generated: run `docs/build.py`, not sphinx-build."""
from configparser import ConfigParser
from pathlib import Path

_ini = ConfigParser(delimiters=['='])
_ini.read(Path(__file__).absolute().parent.parent/'settings.ini', encoding='utf-8')
_cfg = _ini['DEFAULT']

project = html_title = _cfg['title']
author = _cfg['author']
copyright = _cfg['copyright']
release = _cfg['version']

extensions = ['myst_nb']
exclude_patterns = ['_static', '_root', '*.md', '**/*.md', '**/.ipynb_checkpoints']  # only notebooks are pages
nb_execution_mode = 'off'          # notebooks are shown with the outputs they were saved/run with
nb_merge_streams = True
nb_ipywidgets_js = {}              # never add the widget scripts (they come from a CDN)
myst_enable_extensions = ['dollarmath', 'attrs_block']
suppress_warnings = ['myst.header']  # show_doc headings are h3 right under the h1 title, as in nbdev
myst_all_links_external = True     # build.py already made every link a relative URL to an .html page

html_theme = 'sphinx_book_theme'
html_theme_options = {
    'home_page_in_toc': True,      # sidebar: home, then the toctrees build.py appends to index
    'show_navbar_depth': 1,
    'use_download_button': False,
    'navigation_with_keys': False,
}
html_static_path = ['_static', '_src/_static']   # _src/_static/mathjax is written by build.py
html_css_files = ['custom.css']
html_extra_path = ['_src/_root']  # files pages link to (figures/, ...), copied there by build.py
html_copy_source = False
html_show_sourcelink = False
mathjax_path = 'mathjax/tex-svg.js'  # relative to _static: served from the site itself, never a CDN
