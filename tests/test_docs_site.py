"""Browser check of the built docs site (`_docs/`, made by `make docs`).

Serves `_docs/` on 127.0.0.1 and drives headless Chromium (Debian's chromium + chromedriver) with selenium.
Skips when the site or the browser is missing, except under CI (`CI` set), where that is a failure.
"""
import functools, http.server, os, shutil, tempfile, threading, urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT/'_docs'
CHROMIUM, CHROMEDRIVER = '/usr/bin/chromium', '/usr/bin/chromedriver'
DATA_PAGE = 'data.html'  # from nbs/00_data.ipynb (nbdev names pages without the number prefix)

def unavailable(why):
    if os.environ.get('CI'): pytest.fail(f'{why} (CI is set, so this is a failure, not a skip)')
    pytest.skip(why)

@pytest.fixture(scope='module')
def base_url():
    if not (SITE/'index.html').exists(): unavailable('_docs/index.html missing: run `make docs` first')
    handler = functools.partial(QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)  # port 0: a free one
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{server.server_address[1]}/'
    server.shutdown(); server.server_close()

class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass

@pytest.fixture(scope='module')
def driver(base_url):
    for exe in (CHROMIUM, CHROMEDRIVER):
        if not Path(exe).exists(): unavailable(f'{exe} missing (apt-get install chromium chromium-driver)')
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix='docs-chromium-')
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in ('--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
              '--disable-component-update', '--disable-sync', f'--user-data-dir={profile}', '--window-size=1280,1500'):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    d.set_page_load_timeout(30)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)

def open_page(driver, url):
    driver.get(url)
    return driver

def h1_text(driver):
    return driver.execute_script("const h = document.querySelector('main h1, article h1'); return h ? h.innerText : null")

def sidebar_links(driver, base_url):
    open_page(driver, base_url + 'index.html')
    hrefs = driver.execute_script(
        "return [...document.querySelectorAll('nav.bd-docs-nav a[href]')].map(a => a.href)")
    return sorted({h.split('#')[0] for h in hrefs})

@pytest.fixture(scope='module')
def pages(driver, base_url):
    "Every page the sidebar links to (home included), visited once: url -> facts gathered in the browser."
    res = {}
    for url in sidebar_links(driver, base_url):
        with urllib.request.urlopen(url) as r: status = r.status
        open_page(driver, url)
        res[url] = dict(status=status, h1=h1_text(driver), text=driver.execute_script('return document.body.innerText'),
                        resources=driver.execute_script("""
            const urls = performance.getEntriesByType('resource').map(e => e.name);
            for (const el of document.querySelectorAll('script[src], img[src], iframe[src], source[src]')) urls.push(el.src);
            for (const el of document.querySelectorAll('link[href]')) if (!/^(next|prev|index|search|canonical)$/.test(el.rel)) urls.push(el.href);
            return urls;"""),
                        images=loaded_images(driver))
    return res

def loaded_images(driver):
    "(src, naturalWidth) of the images in the page content, each scrolled into view and waited for."
    from selenium.webdriver.support.ui import WebDriverWait
    imgs = driver.find_elements('css selector', 'article img')
    res = []
    for img in imgs:
        driver.execute_script('arguments[0].scrollIntoView()', img)
        WebDriverWait(driver, 10).until(lambda d: d.execute_script('return arguments[0].complete', img))
        res.append((img.get_attribute('src'), driver.execute_script('return arguments[0].naturalWidth', img)))
    return res

def test_home_and_data_pages_have_h1(driver, base_url):
    assert h1_text(open_page(driver, base_url + 'index.html'))
    assert (SITE/DATA_PAGE).exists(), f'no {DATA_PAGE}: is there an nbs/00_data.ipynb?'
    assert h1_text(open_page(driver, base_url + DATA_PAGE))

def test_sidebar_links_resolve(pages, base_url):
    assert base_url + DATA_PAGE in pages, 'the data module page is not in the sidebar'
    assert len(pages) >= 2
    for url, p in pages.items():
        assert p['status'] == 200, url
        assert p['h1'], f'{url} has no h1'

def test_no_directive_text(pages):
    for url, p in pages.items():
        assert '#|' not in p['text'], f'stray `#|` on {url}'

def test_a_figure_loads(pages):
    images = [i for p in pages.values() for i in p['images']]
    broken = [src for src, w in images if not w]
    assert not broken, f'images that did not load: {broken}'
    assert any(w > 0 for _, w in images), 'no figure on any page'

def test_only_local_requests(pages):
    for url, p in pages.items():
        for r in p['resources']:
            u = urlparse(r)
            assert u.scheme in ('data', 'blob', 'about') or u.hostname == '127.0.0.1', f'{url} requests {r}'

def exported_symbols(page):
    "Symbols nbdev's index (_modidx.py) documents on `page`, as (name, anchor)."
    modidx = ROOT/'scruples'/'_modidx.py'
    if not modidx.exists(): return []
    ns = {}; exec(modidx.read_text(), ns)
    return [(sym, doc.split('#', 1)[1]) for mod in ns['d']['syms'].values() for sym, (doc, _) in mod.items()
            if doc.split('#')[0] == page and '#' in doc]

def test_data_page_has_api_docs(driver, base_url):
    open_page(driver, base_url + DATA_PAGE)
    syms = exported_symbols(DATA_PAGE)
    assert syms, f'scruples/_modidx.py documents nothing on {DATA_PAGE} (run nbdev_export)'
    found = [s for s, anchor in syms if driver.execute_script(
        "const a = document.getElementById(arguments[0]); return a && a.classList.contains('nbdev-showdoc')", anchor)]
    assert found, f'no show_doc output for any of {[s for s, _ in syms]} on {DATA_PAGE}'
    # the anchor is followed by the heading with the symbol's name
    name = found[0].rsplit('.', 1)[-1]
    assert name in driver.execute_script('return document.querySelector("article").innerText')
