"""Browser check of the built docs site (`_docs/`, made by `make docs`), and a check of that check.

`check_site` serves a folder on 127.0.0.1, crawls every page reachable from `index.html` in headless Chromium
(Debian's chromium + chromedriver, driven by selenium) and returns the problems it finds, each as
`(kind, page, detail)`. The kinds:

- `http`: a page that does not answer 200;             `no-h1`: a page without a title heading;
- `error-text`: a traceback or an error output in a page (`Traceback (most recent call last)`, a rendered
  error output, IPython's `---> ` frame markers);       `ansi`: terminal colour codes (`ESC[0;31m` or `[0;31m`);
- `directive`: stray `#|` notebook directives;          `dead-link`: an internal link to a missing file;
- `dead-anchor`: an internal link to an id that is not on its page;   `duplicate-id`: an HTML id used twice;
- `external-request`: any request the page makes that does not go to 127.0.0.1 (from Chromium's network log,
  so CSS fonts and scripts' fetches count too);         `console-error`: a SEVERE entry in the browser console
  (JavaScript errors, `console.error`, failed loads such as a missing favicon);
- `broken-image`: an image that did not load;           `alt-path`: an image whose alt text is a file name;
- `small-figure`: a raster figure whose text renders smaller than the body text allows. Heuristic: the smallest
  text of a matplotlib figure is taken as 10 pt (matplotlib's default tick-label size), so at the PNG's dpi
  (its pHYs chunk; 72 when absent, as browsers assume) it is `10 * dpi / 72` image pixels high, and on screen
  `10 * dpi / 72 * rendered_width / natural_width` CSS pixels. The figure fails when that is below
  `FIGURE_TEXT_MIN` (0.8) times the font size of the page's body text (16 px in this theme, so below 12.8 px):
  a figure shown at its natural size (100 dpi, 13.9 px text) passes, the same figure squeezed by more than 8% fails;
- `wide-figure`: a figure wider than the column it sits in, at the crawl's window width;
- `figure-overflow`, `page-overflow` (measured on every page again at each of `WIDTHS`, 1024 and 1280 px windows, and
  on the pages of `PHONE_PAGES` at a phone's `PHONE_WIDTH`, 390 px): a figure (an image) whose right edge passes its
  column's, or that sits in a box scrolling sideways (figures shrink to fit, they never scroll); a page wider than
  the window (the body scrolls sideways), naming the widest element that passes the window's edge;
- `machine-path`: a path of the machine that built it in the visible text or in alt/title attributes
  (`/work/...`, `/tmp/...`, `/home/...`, `/root/...`, `/Users/...`, `site-packages`, `/.venv/`, `_proc/`, ...);
- `empty-index`: a `genindex.html` without entries;
- `run-leftover`: what a run leaves that is not a result (`LEFTOVER_RE`): a frozen progress bar (`0%|`), the repr of a
  widget (`VBox(children=...`), a printed `Empty DataFrame`, a paper page's "edited since this run" note (its kept run
  is older than its code: `make reproduce`).

`test_check_catches_each_defect` builds a tiny site with one defect per page (and one clean page) and asserts
that each is reported, so the check itself is tested. The real site's test also writes screenshots of the home
page and a paper page, 1280 px wide, to `_docs_screens/` (gitignored).

Skips when the site or the browser is missing (one line, with the command that installs the browser: `make sysdeps`),
except under CI (`CI` set), where that is a failure.
"""
import functools, http.server, importlib.util, io, json, os, re, shutil, struct, tempfile, threading
import urllib.error, urllib.request, zlib
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT/'_docs'
SCREENS = ROOT/'_docs_screens'
BROWSER = {'chromium': ('chromium', 'chromium-browser'), 'chromedriver': ('chromedriver',)}  # names looked up on PATH
WINDOW = 1400            # the crawl's window width (CSS px); the layout is measured again at each of WIDTHS
WIDTHS = (1280, 1024)    # common laptop windows: every page, no figure or page overflows
PHONE_WIDTH = 390        # a phone (CSS px), for the pages of PHONE_PAGES
PHONE_PAGES = ('index.html', 'data.html', 'guides/your_data.html', 'papers/models.html')
DATA_PAGE = 'data.html'  # from nbs/0N_data.ipynb (nbdev names pages without the number prefix)
FIGURE_TEXT_PT = 10      # assumed smallest text of a figure, in points (matplotlib's default tick labels)
FIGURE_TEXT_MIN = 0.8    # ... must render at least this fraction of the body font size

ERROR_RE = re.compile(r'Traceback \(most recent call last\)|^-{3}> \d+ |^\s*Cell In\[\d+\], line \d+', re.M)
ANSI_RE = re.compile(r'\x1b\[[0-9;]*[A-Za-z]|(?<![\w\[])\[(?:\d{1,3};)*\d{1,3}m(?=\S)')
MACHINE_PATH_RE = re.compile(r'''(?<![\w.:/~-])/(?:work|tmp|home|root|Users|private|var/folders|var/tmp|opt|mnt|srv|scratch)/[\w.~-]'''
                             r'''|[A-Za-z]:\\(?:Users|Windows)\\|site-packages|dist-packages|/\.venv/|\b_proc/|docs/_src/|docs/_build/''')
KINDS = ('http', 'no-h1', 'error-text', 'ansi', 'directive', 'dead-link', 'dead-anchor', 'duplicate-id',
         'external-request', 'console-error', 'broken-image', 'alt-path', 'small-figure', 'wide-figure', 'machine-path', 'empty-index',
         'run-leftover', 'figure-overflow', 'page-overflow')
LEFTOVER_RE = re.compile(r'\b\d{1,3}%\|[^|\n]{0,60}\|\s*[\d.]+[kMG]?/\S+ \[|\b(?:V|H)?Box\(children=\(|\b(?:Int|Float)Progress\(value='
                         r'|\bEmpty DataFrame\b|has been edited since this run')

def unavailable(why):
    if os.environ.get('CI'): pytest.fail(f'{why} (CI is set, so this is a failure, not a skip)')
    pytest.skip(why)

# ------------------------------------------------------------------------------------- serving
class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args): pass

@contextmanager
def serve(folder):
    "Serve `folder` on a free port of 127.0.0.1; yields the base URL."
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try: yield f'http://127.0.0.1:{server.server_address[1]}/'
    finally: server.shutdown(); server.server_close()

def browser():
    "(chromium, chromedriver) found on PATH, or the one line a skip says: what is missing and what installs it."
    found = {k: next(filter(None, map(shutil.which, names)), None) for k, names in BROWSER.items()}
    missing = [k for k, v in found.items() if not v]
    if missing:
        return None, (f"{' and '.join(missing)} not found: the docs' browser check needs them; "
                      '`make sysdeps` installs them (as root: apt-get install chromium chromium-driver)')
    return (found['chromium'], found['chromedriver']), None

@pytest.fixture(scope='module')
def driver():
    exes, why = browser()
    if why: unavailable(why)
    chromium, chromedriver = exes
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix='docs-chromium-')
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ('--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run',
              '--disable-component-update', '--disable-sync', '--hide-scrollbars', f'--user-data-dir={profile}',
              f'--window-size={WINDOW},1500', '--force-device-scale-factor=1'):
        opts.add_argument(a)
    opts.set_capability('goog:loggingPrefs', {'browser': 'ALL', 'performance': 'ALL'})
    d = webdriver.Chrome(service=Service(chromedriver), options=opts)
    d.set_page_load_timeout(30)
    yield d
    d.quit()
    shutil.rmtree(profile, ignore_errors=True)

# ------------------------------------------------------------------------------------- the check
def png_dpi(data: bytes):
    "Horizontal dots per inch from a PNG's pHYs chunk (None when absent or not a PNG)."
    if not data.startswith(b'\x89PNG\r\n\x1a\n'): return None
    i = 8
    while i + 8 <= len(data):
        n, kind = struct.unpack('>I4s', data[i:i+8])
        if kind == b'pHYs':
            x, _, unit = struct.unpack('>IIB', data[i+8:i+17])
            return x*0.0254 if unit == 1 else None
        if kind == b'IDAT': return None
        i += 12 + n
    return None

def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as r: return r.status, r.read()
    except urllib.error.HTTPError as e: return e.code, b''
    except Exception as e: return None, str(e).encode()

PAGE_JS = r"""
const art = document.querySelector('article') || document.body;
const ids = [...document.querySelectorAll('[id]')].map(e => e.id).concat(
            [...document.querySelectorAll('a[name]')].map(e => e.name));
const sizes = {};  // the body font size: the most common one among the article's paragraphs
for (const q of art.querySelectorAll('p')) { const f = getComputedStyle(q).fontSize; sizes[f] = (sizes[f] || 0) + (q.innerText || '').length; }
const font = Object.keys(sizes).length ? Object.entries(sizes).sort((a, b) => b[1] - a[1])[0][0] : getComputedStyle(art).fontSize;
const imgs = [...art.querySelectorAll('img')].map(i => ({src: i.currentSrc || i.src, alt: i.getAttribute('alt'),
    natural: i.naturalWidth, rendered: i.getBoundingClientRect().width, complete: i.complete,
    box: (i.closest('.cell_output') || i.parentElement).clientWidth}));
const attrs = [...document.querySelectorAll('[alt], [title]')].map(e => (e.getAttribute('alt') || '') + ' ' + (e.getAttribute('title') || ''));
return {h1: [...document.querySelectorAll('h1')].map(h => h.innerText.trim()).find(t => t) || null,
        text: document.body.innerText, ids: ids, attrs: attrs,
        links: [...document.querySelectorAll('a[href]')].map(a => a.href),
        errors: document.querySelectorAll('.output.traceback, .output.error, div.stderr .traceback').length,
        font: parseFloat(font), imgs: imgs,
        index_entries: document.querySelectorAll('table.indextable a, .genindextable a, table.genindextable li').length};
"""

def visit(driver, url):
    "Open `url`, wait for its images, return the facts PAGE_JS gathers plus the console and network logs."
    from selenium.webdriver.support.ui import WebDriverWait
    driver.get_log('browser'); driver.get_log('performance')  # flush what earlier pages left
    driver.get(url)
    driver.execute_script('window.scrollTo(0, document.body.scrollHeight)')
    try: WebDriverWait(driver, 10).until(lambda d: d.execute_script(
            "return [...document.images].every(i => i.complete)"))
    except Exception: pass
    facts = driver.execute_script(PAGE_JS)
    facts['console'] = [e['message'] for e in driver.get_log('browser') if e['level'] == 'SEVERE']
    reqs = []
    for e in driver.get_log('performance'):
        msg = json.loads(e['message'])['message']
        if msg['method'] == 'Network.requestWillBeSent': reqs.append(msg['params']['request']['url'])
    facts['requests'] = reqs
    return facts

LAYOUT_JS = r"""
const vw = document.documentElement.clientWidth, art = document.querySelector('article') || document.body;
const col = art.getBoundingClientRect();
const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className == 'string' ?
    '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '');
const scrolls = e => { const o = getComputedStyle(e).overflowX;
  return (o == 'auto' || o == 'scroll') && e.scrollWidth > e.clientWidth + 1; };
const figs = [];
for (const i of art.querySelectorAll('img')) {
  const r = i.getBoundingClientRect();
  if (!r.width) continue;
  let box = null;
  for (let e = i.parentElement; e && e != art.parentElement; e = e.parentElement) if (scrolls(e)) { box = e; break; }
  figs.push({src: i.currentSrc || i.src, left: r.left, right: r.right, width: r.width, natural: i.naturalWidth,
             scroller: box ? name(box) + ' ' + box.clientWidth + ' px' : null});
}
const clipped = e => { for (let a = e; a && a != document.body; a = a.parentElement) {  // or fixed: off the page's flow
  const st = getComputedStyle(a);
  if (st.position == 'fixed' || (a != e && st.overflowX != 'visible')) return true; } return false; };
let widest = null;  // the element furthest past the window's right edge, not inside a box that clips or scrolls
if (document.documentElement.scrollWidth > vw + 1)
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (r.right <= vw + 1 || clipped(e)) continue;
    if (!widest || r.right > widest.right) widest = {name: name(e), right: r.right, width: r.width};
  }
return {vw: vw, scroll: document.documentElement.scrollWidth, col_left: col.left, col_right: col.right,
        col_width: col.width, figs: figs, widest: widest};
"""

def set_width(driver, width, mobile=False):
    "Lay pages out as in a window (or a phone's screen, `mobile`) `width` CSS pixels wide."
    driver.execute_cdp_cmd('Emulation.setDeviceMetricsOverride',
                           {'width': width, 'height': 900, 'deviceScaleFactor': 1, 'mobile': mobile})

def measure_layout(driver, url, width, mobile=False):
    "The facts LAYOUT_JS gathers on `url` laid out `width` px wide: the page's scroll width, the column, each figure."
    from selenium.webdriver.support.ui import WebDriverWait
    set_width(driver, width, mobile)
    driver.get(url)
    loaded = "return [...document.images].every(i => i.complete)"
    try: WebDriverWait(driver, 10).until(lambda d: d.execute_script(loaded))
    except Exception: pass
    return driver.execute_script(LAYOUT_JS)

def layout_problems(m, width):
    "(kind, detail) of each overflow in one measurement (LAYOUT_JS's facts at `width`)."
    out = []
    if m['scroll'] > m['vw'] + 1:
        w = m['widest'] or {}
        out.append(('page-overflow', f"{width} px: the page is {m['scroll']} px wide in a {m['vw']} px window "
                                     f"(widest: {w.get('name')}, right edge at {w.get('right', 0):.0f} px)"))
    for f in m['figs']:
        if f['right'] > m['col_right'] + 1 or f['scroller']:
            name = f['src'].rsplit('/', 1)[-1][:60]
            box = f", in a box that scrolls ({f['scroller']})" if f['scroller'] else ''
            out.append(('figure-overflow',
                        f"{width} px: {name} is {f['width']:.0f} px wide in a {m['col_width']:.0f} px column{box}"))
    return out

def check_layout(driver, base_url, urls, widths=WIDTHS, phone=(PHONE_WIDTH, PHONE_PAGES)):
    """Every page of `urls` at each of `widths`, and the pages named in `phone` at a phone's width: (problems as
    check_site reports them, {(page, width): measurement})."""
    problems, seen = [], {}
    runs = [(w, u, False) for w in widths for u in urls]
    if phone: runs += [(phone[0], base_url + p, True) for p in phone[1] if base_url + p in urls]
    try:
        for w, u, mobile in runs:
            m = seen[(u[len(base_url):] or 'index.html', w)] = measure_layout(driver, u, w, mobile)
            problems += [(k, u[len(base_url):] or 'index.html', d) for k, d in layout_problems(m, w)]
    finally: driver.execute_cdp_cmd('Emulation.clearDeviceMetricsOverride', {})
    return problems, seen

def is_page(url):
    path = urlparse(url).path
    return path.endswith('/') or path.endswith('.html')

def check_site(driver, base_url, max_pages=300, layout=None):
    """Crawl every page reachable from index.html, then measure each one's layout at WIDTHS (and a phone's width);
    returns (problems, facts by page URL). `layout`, a dict, receives each measurement by (page, width)."""
    driver.set_window_size(WINDOW, 1500)  # the crawl's width, whatever an earlier test left
    problems, facts, queue, seen = [], {}, [base_url + 'index.html'], set()
    def report(kind, page, detail): problems.append((kind, page[len(base_url):] or 'index.html', str(detail)[:300]))
    while queue and len(facts) < max_pages:
        url = queue.pop(0)
        if url in seen: continue
        seen.add(url)
        status, _ = fetch(url)
        if status != 200:  # a missing page someone links to is reported as that page's dead link
            if not facts: report('http', url, status)
            continue
        f = facts[url] = visit(driver, url)
        if not f['h1']: report('no-h1', url, 'no h1')
        for link in f['links']:
            target, _ = urldefrag(link)
            if target.startswith(base_url) and is_page(target) and target not in seen: queue.append(target)
    for url, f in facts.items():
        text = f['text']
        for m in ERROR_RE.finditer(text): report('error-text', url, text[max(0, m.start()-80):m.end()+80])
        if f['errors']: report('error-text', url, f"{f['errors']} error outputs")
        for m in ANSI_RE.finditer(text): report('ansi', url, repr(text[max(0, m.start()-40):m.end()+40])); break
        if '#|' in text: report('directive', url, 'stray `#|`')
        for m in LEFTOVER_RE.finditer(text): report('run-leftover', url, text[max(0, m.start()-60):m.end()+60])
        for m in MACHINE_PATH_RE.finditer(text + '\n' + '\n'.join(f['attrs'])):
            s = (text + '\n' + '\n'.join(f['attrs']))
            report('machine-path', url, s[max(0, m.start()-60):m.end()+60])
        for i, n in Counter(f['ids']).items():
            if n > 1 and i: report('duplicate-id', url, f'id {i!r} x{n}')
        for r in f['requests']:
            u = urlparse(r)
            if not (u.scheme in ('data', 'blob', 'about', 'chrome', 'chrome-extension') or u.hostname == '127.0.0.1'):
                report('external-request', url, r)
        for c in f['console']: report('console-error', url, c)
        if urlparse(url).path.endswith('genindex.html') and not f['index_entries']: report('empty-index', url, 'no entries')
        for img in f['imgs']:
            if not img['natural']: report('broken-image', url, img['src']); continue
            alt = (img['alt'] or '').strip()
            if re.search(r'\.(png|jpe?g|svg|gif|webp)$', alt, re.I) or alt.startswith(('_images/', '../')):
                report('alt-path', url, f'{img["src"]}: alt {alt!r}')
            status, data = fetch(img['src'])
            if data.lstrip()[:5] in (b'<svg ', b'<?xml'): continue  # vector: scales with its own text
            dpi = png_dpi(data) or 72
            text_px = FIGURE_TEXT_PT*dpi/72*img['rendered']/img['natural']
            if img['rendered'] > img['box'] + 2:
                report('wide-figure', url, f"{img['src']}: {img['rendered']:.0f} px wide in a {img['box']} px column (scrolls sideways)")
            if text_px < FIGURE_TEXT_MIN*f['font']:
                report('small-figure', url, f"{img['src']}: {img['natural']} px at {dpi:.0f} dpi shown {img['rendered']:.0f} px "
                       f"wide: {FIGURE_TEXT_PT} pt text renders {text_px:.1f} px < {FIGURE_TEXT_MIN} x {f['font']:.0f} px body text")
    # links and anchors, against the pages visited (other files: fetched)
    ids = {u: set(f['ids']) for u, f in facts.items()}
    checked = {}
    for url, f in facts.items():
        for link in set(f['links']):
            if not link.startswith(base_url): continue
            target, frag = urldefrag(link)
            if target in facts:
                if frag and frag not in ids[target] and urllib.parse.unquote(frag) not in ids[target]:
                    report('dead-anchor', url, link[len(base_url):])
            elif target not in checked:
                checked[target] = fetch(target)[0]
                if checked[target] != 200: report('dead-link', url, f'{link[len(base_url):]} ({checked[target]})')
            elif checked[target] != 200: report('dead-link', url, f'{link[len(base_url):]} ({checked[target]})')
    found, measured = check_layout(driver, base_url, list(facts))
    problems += found
    if layout is not None: layout.update(measured)
    return problems, facts

def screenshot(driver, url, path, width=1280, max_height=12000):
    "Full-page screenshot of `url`, `width` CSS pixels wide."
    driver.set_window_size(width, 1500)
    driver.get(url)
    h = driver.execute_script('return Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)')
    driver.set_window_size(width, min(h, max_height))
    path.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(path))
    driver.set_window_size(WINDOW, 1500)
    return path

# ------------------------------------------------------------------------------- the real site
@pytest.fixture(scope='module')
def site(driver):
    if not (SITE/'index.html').exists(): unavailable('_docs/index.html missing: run `make docs` first')
    with serve(SITE) as base_url:
        problems, facts = check_site(driver, base_url, layout=LAYOUT)
        yield base_url, problems, facts

LAYOUT = {}  # (page, width) -> what LAYOUT_JS measured, filled by the `site` fixture

def test_site_has_no_defects(site):
    base_url, problems, facts = site
    by_kind = Counter(k for k, _, _ in problems)
    listing = '\n'.join(f'{k}: {p}: {d}' for k, p, d in problems[:60])
    assert not problems, f'{len(problems)} problems on {len(facts)} pages ({dict(by_kind)}):\n{listing}'

def test_site_has_pages_and_figures(site):
    base_url, _, facts = site
    assert base_url + DATA_PAGE in facts, f'no {DATA_PAGE} reachable from the home page'
    papers = [u for u in facts if '/papers/' in u]
    assert papers, 'no paper page reachable from the home page'
    assert any(i['natural'] for f in facts.values() for i in f['imgs']), 'no figure on any page'
    assert any(u.endswith('summary.html') for u in facts), 'the reproduction summary is not a page of the site'

def test_home_page_links_the_guide(site):
    "The guide is one click from home: a link in the home page's text and in its table of notebooks."
    base_url, _, facts = site
    home = facts[base_url + 'index.html']
    article_links = [l for l in home['links'] if l.startswith(base_url + 'guides/')]
    assert len(article_links) >= 2, f'the home page links the guide {len(article_links)} time(s): {article_links}'

def test_summary_headings_link_the_paper_pages(site):
    base_url, _, facts = site
    summary = next(f for u, f in facts.items() if u.endswith('figures/summary.html'))
    papers = {l.split('#')[0] for l in summary['links'] if '/papers/' in l and l.startswith(base_url)}
    assert len(papers) >= len(list((ROOT/'nbs'/'papers').glob('[0-9]*.ipynb'))), papers

def test_paper_pages_say_which_run(site):
    "Each paper page shows the full run, or says plainly (a warning banner) that it shows something else."
    base_url, _, facts = site
    for url, f in facts.items():
        if '/papers/' not in url: continue
        assert re.search(r'Outputs of the full reproduction|not the full reproduction', f['text']), url

def exported_symbols(page):
    "Symbols nbdev's index (_modidx.py) documents on `page`, as (name, anchor)."
    modidx = ROOT/'scruples'/'_modidx.py'
    if not modidx.exists(): return []
    ns = {}; exec(modidx.read_text(), ns)
    return [(sym, doc.split('#', 1)[1]) for mod in ns['d']['syms'].values() for sym, (doc, _) in mod.items()
            if doc.split('#')[0] == page and '#' in doc]

def test_data_page_has_api_docs(site, driver):
    base_url, _, facts = site
    f = facts[base_url + DATA_PAGE]
    syms = [(s, a) for s, a in exported_symbols(DATA_PAGE) if not s.rsplit('.', 1)[-1].startswith('_')]
    assert syms, f'scruples/_modidx.py documents nothing on {DATA_PAGE} (run nbdev_export)'
    found = [s for s, anchor in syms if anchor in f['ids']]
    assert found, f'no show_doc anchor for any of {[s for s, _ in syms]} on {DATA_PAGE}'
    assert found[0].rsplit('.', 1)[-1] in f['text']

def test_screenshots(site, driver):
    base_url, _, facts = site
    paper = sorted(u for u in facts if '/papers/' in u)[0]
    for name, url in (('home', base_url + 'index.html'), ('paper', paper)):
        p = screenshot(driver, url, SCREENS/f'{name}.png')
        assert p.stat().st_size > 10_000

# ------------------------------------------------------------------------- the check, checked
def _png(width, height, dpi=100):
    "A PNG of a grey frame, with a pHYs chunk saying `dpi`."
    from PIL import Image, ImageDraw
    im = Image.new('RGB', (width, height), 'white')
    ImageDraw.Draw(im).rectangle([2, 2, width-3, height-3], outline='black')
    buf = io.BytesIO(); im.save(buf, 'PNG', dpi=(dpi, dpi)); return buf.getvalue()

BAD_PAGES = {  # kind -> body of a page with that defect (and only that one)
    'error-text': '<pre>Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad</pre>',
    'ansi': '<pre>\x1b[0;31mValueError\x1b[0m: bad</pre><pre>[0;31mTypeError[0m</pre>',
    'directive': '<pre>#| hide\nx = 1</pre>',
    'dead-link': '<p><a href="missing.html">a page that is not there</a></p>',
    'dead-anchor': '<p><a href="index.html#nowhere">an anchor that is not there</a></p>',
    'duplicate-id': '<p id="twice">one</p><p id="twice">two</p>',
    'external-request': '<script>fetch("http://docs-check.invalid/x.js").catch(() => 0)</script>',
    'console-error': '<script>console.error("something broke")</script>',
    'broken-image': '<img src="nothing.png" alt="A figure">',
    'alt-path': '<img src="fig.png" alt="../_images/fig.png" width="300">',
    'small-figure': '<img src="wide.png" alt="A wide figure" style="width: 400px">',
    'wide-figure': '<div style="width: 500px; overflow-x: auto"><img src="fig.png" alt="A figure" style="width: 700px"></div>',
    # fits at the crawl's 1400 px window, not at 1280 or 1024: a figure that scrolls, a page wider than the window
    'figure-overflow': ('<div style="overflow-x: auto"><img src="fig1300.png" alt="A figure" '
                        'style="max-width: none"></div>'),
    'page-overflow': '<div style="width: 1300px">A box wider than a 1280 px window.</div>',
    'machine-path': '<pre>saved to /tmp/tmpab12cd/figures/table1.csv</pre>',
    'empty-index': None,  # genindex.html without entries
    'run-leftover': '<pre>epoch 1/3:   0%|          | 0/59 [00:00&lt;?, ?it/s]</pre><pre>Empty DataFrame\nColumns: [a]</pre>',
}
CLEAN_BODY = ('<p>Body text with a <a href="index.html#top">link</a>, a number 5.243, a path '
              '<code>figures/summary.md</code> and an <a href="https://github.com/x/y">external link</a>.</p>'
              '<img src="fig.png" alt="A figure at its natural size">')

def make_bad_site(folder):
    folder = Path(folder)
    page = lambda title, body: (f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title>'
                                f'<link rel="icon" href="data:,"></head><body><article><h1 id="top">{title}</h1>'
                                f'<p>Some body text.</p>{body}</article></body></html>')
    links = ''.join(f'<li><a href="{k}.html">{k}</a></li>' for k in [*BAD_PAGES, 'clean'])
    (folder/'index.html').write_text(page('Home', f'<ul>{links}</ul>'), encoding='utf-8')
    (folder/'clean.html').write_text(page('Clean', CLEAN_BODY), encoding='utf-8')
    for kind, body in BAD_PAGES.items():
        name = 'genindex.html' if kind == 'empty-index' else f'{kind}.html'
        (folder/name).write_text(page(kind, body or '<table class="indextable"></table>'), encoding='utf-8')
    (folder/'empty-index.html').write_text(page('empty-index', '<a href="genindex.html">index</a>'), encoding='utf-8')
    (folder/'fig.png').write_bytes(_png(300, 120))
    (folder/'wide.png').write_bytes(_png(1500, 400))
    (folder/'fig1300.png').write_bytes(_png(1300, 200))

def test_check_catches_each_defect(driver, tmp_path):
    make_bad_site(tmp_path)
    with serve(tmp_path) as base_url:
        problems, facts = check_site(driver, base_url)
    found = {(k, p) for k, p, _ in problems}
    assert len(facts) == len(BAD_PAGES) + 3, sorted(facts)  # index, clean, each bad page, genindex
    for kind in BAD_PAGES:
        page = 'genindex.html' if kind == 'empty-index' else f'{kind}.html'
        assert (kind, page) in found, f'{kind} on {page} went unnoticed; found {sorted(found)}'
    clean = [p for p in problems if p[1] in ('clean.html', 'index.html')]
    assert not clean, f'false alarms on clean pages: {clean}'
    # each bad page is reported for its own defect; other kinds there are side effects we name here
    allowed = {'external-request': {'console-error'}, 'broken-image': {'console-error'}, 'empty-index': set(),
               'wide-figure': {'figure-overflow'}}  # a figure that scrolls at 1400 px does at 1280 and 1024 too
    widths = {d.split(' px')[0] for k, p, d in problems if k in ('figure-overflow', 'page-overflow') and p[:-5] == k}
    assert widths == {str(w) for w in WIDTHS}, f'overflows not found at every width: {widths}'
    extra = [(k, p) for k, p, _ in problems if p != 'genindex.html' and k != p[:-5] and k not in allowed.get(p[:-5], set())]
    assert not extra, f'unexpected problems: {extra}'

# --------------------------------------------------------------- the build's own checks (no browser)
def _build_module():
    spec = importlib.util.spec_from_file_location('docs_build', ROOT/'docs'/'build.py')
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m

def test_build_finds_error_outputs():
    b = _build_module()
    err = {'output_type': 'error', 'ename': 'TypeError', 'evalue': 'bad', 'traceback': ['\x1b[0;31mTypeError\x1b[0m']}
    tb = {'output_type': 'stream', 'name': 'stderr', 'text': 'Traceback (most recent call last):\n  File "x"\nKeyError: 1\n'}
    ok = {'output_type': 'stream', 'name': 'stdout', 'text': 'ValueError is what bad input raises\n'}
    nb = {'cells': [{'cell_type': 'code', 'source': 'f()', 'outputs': [o], 'metadata': {}} for o in (err, tb, ok)]}
    found = b.error_outputs(nb)
    assert len(found) == 2, found
    empty = {'output_type': 'execute_result', 'data': {}, 'metadata': {}, 'execution_count': 1}
    nb = {'cells': [{'cell_type': 'code', 'source': '#| echo: false\nshow_doc(f)', 'outputs': [empty], 'metadata': {}}]}
    assert b.error_outputs(nb), 'a show_doc entry that rendered nothing went unnoticed'
    md = {'cells': [{'cell_type': 'markdown', 'source': '```\nTraceback (most recent call last):\n```', 'metadata': {}}]}
    assert b.error_outputs(md)

def test_build_cleans_signatures():
    b = _build_module()
    fix = b.fix_signature
    assert fix('def f(\n    \n)->Path:', False) == 'def f()->Path:'
    assert fix('def f(\n    counts\n)->np.ndarray:', False) == 'def f(counts)->np.ndarray:'
    assert fix('def E(\n    args:VAR_POSITIONAL, kwargs:VAR_KEYWORD\n):', True) == 'class E(*args, **kwargs):'
    s = fix('def R(\n    nlp:NoneType=None, # a pipeline (default: [`load_spacy()`](verbs.html#load_spacy))\n    n:int=5\n):', True)
    assert s == 'class R(\n    nlp=None, # a pipeline (default: `load_spacy()`)\n    n:int=5\n):', s

def test_build_drops_the_series_dtype_footer():
    "A pandas Series shown as a cell's result reads as a table on the pages: no `dtype: float64` line under it."
    import pandas as pd
    b = _build_module()
    text = b.series_footer(repr(pd.Series({'f1': 0.78, 'n': 60.0})))
    assert 'dtype' not in text and text.startswith('f1') and '0.78' in text
    assert b.series_footer(repr(pd.Series([1.0], name='x'))).endswith('(name: x)')
    assert b.series_footer('a table\nwith dtype: words in it\nend') == 'a table\nwith dtype: words in it\nend'


def test_build_scrubs_machine_paths():
    b = _build_module()
    s = b.scrub(f'{ROOT}/figures/x.png and {tempfile.gettempdir()}/tmpab_12/y and /usr/lib/python3/site-packages/z.py:3: Warn')
    assert not MACHINE_PATH_RE.search(s), s
    assert 'figures/x.png' in s

def test_keep_runs_cleans_and_refuses_smoke(tmp_path):
    spec = importlib.util.spec_from_file_location('keep_runs', ROOT/'docs'/'keep_runs.py')
    k = importlib.util.module_from_spec(spec); spec.loader.exec_module(k)
    out = {'output_type': 'stream', 'name': 'stderr', 'text': f'{ROOT}/nbs/x.py:1: Warning \x1b[1mbold\x1b[0m'}
    widget = {'output_type': 'display_data', 'metadata': {}, 'data': {'application/vnd.jupyter.widget-view+json': {}}}
    nb = {'metadata': {'widgets': {'state': {}}, 'papermill': {'parameters': {'smoke': False, 'fig_dir': f'{ROOT}/figures'},
          'input_path': f'{ROOT}/nbs/papers/01_x.ipynb', 'output_path': f'{ROOT}/_runs/full/01_x.ipynb',
          'environment_variables': {'HOME': '/root'}}},
          'cells': [{'cell_type': 'code', 'source': 'x', 'metadata': {}, 'outputs': [out, widget]}], 'nbformat': 4, 'nbformat_minor': 5}
    c = k.clean(nb)
    text = json.dumps(c)
    assert 'widgets' not in c['metadata'] and 'widget-view' not in text and '\\u001b' not in text
    assert not MACHINE_PATH_RE.search(text), text
    assert c['metadata']['papermill']['parameters'] == {'smoke': False, 'fig_dir': 'figures'}
    assert c['cells'][0]['outputs'][1]['data'] == {'text/plain': k.build.WIDGET_NOTE}  # a note where the widget stood
    assert len(c['metadata']['scruples']['commit']) == 40  # an unstamped run gets the checkout's commit when kept
    runs = tmp_path/'runs'; runs.mkdir()
    nb['metadata']['papermill']['parameters']['smoke'] = True
    (runs/'01_x.ipynb').write_text(json.dumps(nb))
    with pytest.raises(SystemExit, match='smoke run'): k.keep_runs(runs, tmp_path/'kept')

def test_build_reader_fixes(tmp_path):
    "Whole subtitles, notebook links of markdown pages, table columns marked by their text, the run's commit named."
    b = _build_module()
    nb = {'cells': [{'cell_type': 'markdown', 'source': '# Title\n\n> first line,\n> second line.\n\nProse.'}]}
    assert b.source_summary(nb) == 'first line, second line.'
    from bs4 import BeautifulSoup
    soup = BeautifulSoup('<table><tr><th>status</th><th>note</th></tr><tr><td>agrees</td><td>' + 'word ' * 20 +
                         '</td></tr></table>', 'html.parser')
    assert b.mark_table_columns(soup)
    assert [c['class'] for c in soup.find_all('td')] == [['col-short'], ['col-long']]
    src = json.loads((ROOT/'nbs'/'papers'/'01_dataset_statistics.ipynb').read_text())
    run = json.loads(json.dumps(src)); run['metadata'] = {'scruples': {'commit': 'abcdef1234' * 4, 'dirty': True},
                                                          'papermill': {'end_time': '2026-11-25T19:00:00'}}
    page = b.Page(Path('papers/01_dataset_statistics.ipynb'))
    kept = ROOT/'_runs'/'test-docs-site'/'01_dataset_statistics.ipynb'  # run_note reads the run as kept (gitignored)
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(json.dumps(run))
    processed = {'cells': [], 'metadata': {}}  # what nbdev's processing leaves does not count
    note = b.run_note(page, 'full', kept, processed)
    assert 'commit `abcdef1234` with uncommitted changes' in note and 'edited since' not in note
    code = next(c for c in run['cells'] if c['cell_type'] == 'code'); code['source'] = 'changed = 1'
    kept.write_text(json.dumps(run))
    assert '(1 code cells differ)' in b.run_note(page, 'full', kept, processed)
    shutil.rmtree(kept.parent)
    # a markdown page (figures/summary.md) links the notebooks it names to their pages
    class L: nbs = (ROOT/'nbs').resolve(); by_nb = {'papers/01_dataset_statistics.ipynb': page}
    text = b.md_page((ROOT/'figures'/'summary.md').resolve(), L)['cells'][0]['source']
    assert '](../papers/dataset_statistics.html)' in text and '01_dataset_statistics.ipynb)' not in text

def test_paper_pages_show_current_prose(tmp_path, monkeypatch):
    "A kept run is shown under the notebook's prose as it is now when the cells match; as it ran when the code differs."
    b = _build_module()
    monkeypatch.setattr(b, 'BUILD', tmp_path/'build')
    md = lambda s: {'cell_type': 'markdown', 'metadata': {}, 'source': s}
    code = lambda s, out=(): {'cell_type': 'code', 'metadata': {}, 'source': s, 'outputs': list(out),
                              'execution_count': 1}
    params = {**code('smoke = False'), 'metadata': {'tags': ['injected-parameters']}}
    shown = {'output_type': 'stream', 'name': 'stdout', 'text': '536 s in all\n'}
    nb = lambda *cells: {'cells': list(cells), 'metadata': {}, 'nbformat': 4, 'nbformat_minor': 5}
    run = nb(md('It takes about 350 s.'), params, code('print(t)', [shown]))
    src = nb(md('Each time is in the table.'), code('print(t)'))
    (tmp_path/'run.ipynb').write_text(json.dumps(run)); (tmp_path/'src.ipynb').write_text(json.dumps(src))
    merged = json.loads(Path(b.with_current_prose(tmp_path/'run.ipynb', tmp_path/'src.ipynb')).read_text())
    assert merged['cells'][0]['source'] == 'Each time is in the table.' and merged['cells'][2]['outputs'] == [shown]
    src['cells'][1]['source'] = 'print(t * 2)'  # the code changed since the run: its outputs keep their own prose
    (tmp_path/'src.ipynb').write_text(json.dumps(src))
    assert b.with_current_prose(tmp_path/'run.ipynb', tmp_path/'src.ipynb') == tmp_path/'run.ipynb'

def test_mathjax_from_a_python_package(tmp_path, monkeypatch):
    "MathJax is copied from the environment's package (no npm, no network), with its licence; without it, one line."
    b = _build_module()
    monkeypatch.setattr(b, 'SRC', tmp_path)
    if b.mathjax_dir() is None: pytest.skip('django-static-mathjax is not installed (a dev requirement)')
    assert b.mathjax() and (tmp_path/'_static'/'mathjax'/'LICENSE').is_file()
    assert (tmp_path/'_static'/'mathjax'/'tex-svg.js').stat().st_size > 100_000
    assert (tmp_path/'_static'/'mathjax'/'input'/'tex'/'extensions'/'ams.js').is_file()
    assert 'npm' not in Path(b.__file__).read_text().split('def mathjax_dir')[1].split('def md_page')[0]
    monkeypatch.setattr(b, 'mathjax_dir', lambda: None)
    assert not b.mathjax() and 'not installed' in (tmp_path/'_static'/'mathjax'/'tex-svg.js').read_text()

def test_no_page_shows_a_series_dtype_footer():
    "No page of the built site prints pandas' `dtype: float64` line under a result (docs/build.py's series_footer)."
    if not (SITE/'index.html').exists(): unavailable('_docs/index.html missing: run `make docs` first')
    footer = re.compile(r'^(?:Name: .*, )?dtype: (?:float|int|object|bool)\w*\s*$', re.M)
    found = []
    for page in SITE.rglob('*.html'):
        text = re.sub(r'<[^>]+>', '', page.read_text(encoding='utf-8', errors='replace'))
        if footer.search(text): found.append(str(page.relative_to(SITE)))
    assert not found, f'a `dtype:` footer under a result on {len(found)} pages: {found[:10]}'
