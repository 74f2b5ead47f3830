"""Sphinx configuration for the docs site. Sources are generated: run `docs/build.py`, not sphinx-build."""
import json
from configparser import ConfigParser
from pathlib import Path

_ini = ConfigParser(delimiters=['='])
_ini.read(Path(__file__).absolute().parent.parent/'settings.ini', encoding='utf-8')
_cfg = _ini['DEFAULT']

project = html_title = _cfg['title']
author = _cfg['author']
copyright = _cfg['copyright']
release = _cfg['version']

extensions = ['myst_nb', 'sphinx_copybutton']
exclude_patterns = ['_static', '_root', '*.md', '**/*.md', '**/.ipynb_checkpoints']  # only notebooks are pages
nb_execution_mode = 'off'          # notebooks are shown with the outputs they were saved/run with
nb_merge_streams = True
nb_ipywidgets_js = {}              # never add the widget scripts (they come from a CDN)
myst_enable_extensions = ['dollarmath', 'attrs_block']
suppress_warnings = ['myst.header']  # show_doc headings are h3 right under the h1 title, as in nbdev
myst_all_links_external = True     # build.py already made every link a relative URL to an .html page

html_theme = 'sphinx_book_theme'
_git = _cfg.get('git_url', '').rstrip('/')
html_theme_options = {
    'home_page_in_toc': True,      # sidebar: home, then the toctrees build.py appends to index
    'show_navbar_depth': 1,
    'use_download_button': False,
    'navigation_with_keys': False,
    'repository_url': _git,
    'repository_branch': _cfg.get('branch', 'main'),
    'use_repository_button': bool(_git),
    'use_edit_page_button': bool(_git),
}
# "Edit this page" opens the notebook (nbs/00_data.ipynb), not the generated page: build.py writes the map.
_edit = Path(__file__).absolute().parent/'_src'/'_edit_urls.json'
html_context = {
    'default_mode': 'light',       # without it the theme logs "invalid theme mode" on a first visit
    'edit_urls': json.loads(_edit.read_text()) if _edit.exists() else {},
    'edit_page_url_template': "{{ edit_urls.get(file_name, '') }}",  # file_name: e.g. data.ipynb
    'edit_page_provider_name': 'GitHub',
}
html_favicon = '_static/favicon.svg'
copybutton_selector = 'div.cell_input div.highlight pre, div.highlight-bash pre, div.highlight-python pre'
copybutton_exclude = '.linenos, .gp, .go'
html_static_path = ['_static', '_src/_static']   # _src/_static/mathjax is written by build.py
html_css_files = ['custom.css']
html_extra_path = ['_src/_root']  # files pages link to (figures/, ...), copied there by build.py
html_copy_source = False
html_use_index = True             # genindex: the API entries build.py adds to each show_doc
html_show_sourcelink = False
mathjax_path = 'mathjax/tex-svg.js'  # relative to _static: served from the site itself, never a CDN
