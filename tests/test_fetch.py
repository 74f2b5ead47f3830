"""Tests of `scruples.data.fetch` and `safe_extract`, against a web server on 127.0.0.1 (never the internet)."""
import errno
import hashlib
import http.server
import io
import json
import os
import socket
import tarfile
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from scruples.fetch import CHECKSUMS_FILE, OFFICIAL_URLS, FetchError, fetch, safe_extract

SPLITS = {'anecdotes': ('train', 'dev', 'test'), 'dilemmas': ('train', 'train-extra', 'dev', 'test')}


# --- archives --------------------------------------------------------------------------------

def member(name, kind=tarfile.REGTYPE, link='', data=b''):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.size = kind, link, len(data)
    return info, data


def make_tar(*members) -> bytes:
    "A .tar.gz (as bytes) of `(TarInfo, data)` pairs, in order."
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as tf:
        for info, data in members: tf.addfile(info, io.BytesIO(data) if data else None)
    return buf.getvalue()


def release(kind, tag='v1') -> bytes:
    "A miniature release archive in the official layout: `{kind}/README` and `{kind}/{split}.scruples-{kind}.jsonl`."
    files = [member(f'{kind}/', tarfile.DIRTYPE), member(f'{kind}/README', data=f'Scruples {kind} {tag}\n'.encode())]
    for split in SPLITS[kind]:
        lines = ''.join(json.dumps({'id': f'{kind}-{split}-{i}', 'tag': tag}) + '\n' for i in range(3))
        files.append(member(f'{kind}/{split}.scruples-{kind}.jsonl', data=lines.encode()))
    return make_tar(*files)


def sha256(data: bytes) -> str: return hashlib.sha256(data).hexdigest()


def tree(folder: Path) -> dict:
    "Every file and folder under `folder` (hidden ones included): relative path -> bytes, or None for folders."
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
            for p in sorted(folder.rglob('*'))}


# --- the web server --------------------------------------------------------------------------

class Handler(http.server.BaseHTTPRequestHandler):
    "Serves `server.files` ({path: bytes}); paths in `server.truncated` get half the body, then the connection closes."
    timeout = 5  # a stalled client cannot hold a server thread for long

    def do_GET(self):
        srv = self.server
        srv.hits[self.path] = srv.hits.get(self.path, 0) + 1
        if self.path not in srv.files: return self.send_error(404, 'File not found')
        body = srv.files[self.path]
        self.send_response(200)
        self.send_header('Content-Type', 'application/gzip')
        self.send_header('Content-Length', str(len(body)))  # announced in full...
        self.end_headers()
        self.wfile.write(body[:len(body) // 2] if self.path in srv.truncated else body)  # ...sent in part
        self.close_connection = True

    def log_message(self, *args): pass


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch):
    "Requests to 127.0.0.1 must not go through a proxy configured in the environment."
    for var in ('NO_PROXY', 'no_proxy'): monkeypatch.setenv(var, '127.0.0.1,localhost')


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    srv.daemon_threads = True
    srv.files, srv.hits, srv.truncated = {}, {}, set()
    srv.base = f'http://127.0.0.1:{srv.server_port}'
    srv.urls = {kind: f'{srv.base}/{kind}.tar.gz' for kind in SPLITS}
    srv.serve = lambda kind, data: srv.files.__setitem__(f'/{kind}.tar.gz', data)
    thread = threading.Thread(target=srv.serve_forever, kwargs={'poll_interval': 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)
    assert not thread.is_alive()


@pytest.fixture
def served(server):
    "The server with both official archives on it; `served.data[kind]` holds their bytes."
    server.data = {kind: release(kind) for kind in SPLITS}
    for kind, data in server.data.items(): server.serve(kind, data)
    return server


def fetch_quiet(dest, server, **kwargs):
    return fetch(dest=dest, urls=server.urls, progress=False, **kwargs)


# --- tests -----------------------------------------------------------------------------------

def test_official_urls():
    base = 'https://storage.googleapis.com/ai2-mosaic-public/projects/scruples/v1.0/data'
    assert OFFICIAL_URLS == {'anecdotes': f'{base}/anecdotes.tar.gz', 'dilemmas': f'{base}/dilemmas.tar.gz'}


def test_fetch_extracts_records_and_skips_second_time(tmp_path, served):
    dest = tmp_path/'data'
    assert fetch_quiet(dest, served) == dest
    for kind, splits in SPLITS.items():
        for split in splits:
            rows = (dest/kind/f'{split}.scruples-{kind}.jsonl').read_text().splitlines()
            assert [json.loads(r)['id'] for r in rows] == [f'{kind}-{split}-{i}' for i in range(3)]
        assert (dest/f'{kind}.tar.gz').read_bytes() == served.data[kind]
    records = json.loads((dest/CHECKSUMS_FILE).read_text())
    assert set(records) == {'anecdotes.tar.gz', 'dilemmas.tar.gz'}
    for kind in SPLITS:
        rec = records[f'{kind}.tar.gz']
        assert rec['sha256'] == sha256(served.data[kind]) and rec['size'] == len(served.data[kind])
        assert rec['url'] == served.urls[kind] and rec['date'].startswith('20')
    assert sorted(p.name for p in dest.iterdir()) == ['anecdotes', 'anecdotes.tar.gz', CHECKSUMS_FILE,
                                                      'dilemmas', 'dilemmas.tar.gz']  # no temporary files
    before = tree(dest)
    fetch_quiet(dest, served)
    assert served.hits == {'/anecdotes.tar.gz': 1, '/dilemmas.tar.gz': 1}  # nothing downloaded again
    assert tree(dest) == before


def test_default_dest_is_the_cache(tmp_path, served, monkeypatch, capsys):
    monkeypatch.setenv('SCRUPLES_CACHE', str(tmp_path/'cache'))
    assert fetch('dilemmas', urls=served.urls) == tmp_path/'cache'  # with the progress bar
    assert (tmp_path/'cache'/'dilemmas'/'dev.scruples-dilemmas.jsonl').is_file()
    assert not (tmp_path/'cache'/'anecdotes').exists()
    assert 'dilemmas.tar.gz' in capsys.readouterr().err


@pytest.mark.parametrize('lose', ['nothing', 'extracted'])
def test_later_download_is_checked_against_record(tmp_path, served, lose):
    dest = tmp_path/'data'
    fetch_quiet(dest, served)
    if lose == 'extracted':  # the data was deleted but the record kept: the next download is checked
        (dest/'anecdotes.tar.gz').unlink()
        for p in sorted((dest/'anecdotes').iterdir()): p.unlink()
        (dest/'anecdotes').rmdir()
    before = tree(dest)
    tampered = release('anecdotes', tag='tampered')
    served.serve('anecdotes', tampered)
    with pytest.raises(FetchError) as info:
        fetch_quiet(dest, served, force=lose == 'nothing')
    msg = str(info.value)
    assert 'anecdotes.tar.gz' in msg and sha256(served.data['anecdotes']) in msg and sha256(tampered) in msg
    assert tree(dest) == before  # old data and record intact, nothing half-written


def test_local_tarball_not_matching_record_is_replaced(tmp_path, served):
    dest = tmp_path/'data'
    fetch_quiet(dest, served)
    (dest/'dilemmas.tar.gz').write_bytes(b'corrupted')
    fetch_quiet(dest, served)
    assert (dest/'dilemmas.tar.gz').read_bytes() == served.data['dilemmas']
    assert served.hits['/dilemmas.tar.gz'] == 2


def test_interrupted_first_download(tmp_path, served):
    dest = tmp_path/'data'
    served.truncated.add('/anecdotes.tar.gz')
    with pytest.raises(FetchError, match=f'could not download {served.urls["anecdotes"]}'):
        fetch_quiet(dest, served, which='anecdotes')
    assert list(dest.iterdir()) == []  # no final file, no temporary file, no record


def test_interrupted_later_download_keeps_old_data(tmp_path, served):
    dest = tmp_path/'data'
    fetch_quiet(dest, served)
    before = tree(dest)
    served.truncated.add('/dilemmas.tar.gz')
    with pytest.raises(FetchError, match='IncompleteRead'):
        fetch_quiet(dest, served, force=True)
    assert tree(dest) == before


def malicious_archives(outside: Path):
    ok = member('anecdotes/README', data=b'looks fine')
    return {
        'dotdot': [ok, member('../escape.txt', data=b'x'), member('anecdotes/../../escape.txt', data=b'x')],
        'absolute': [ok, member(str(outside/'abs.txt'), data=b'x')],
        'symlink': [ok, member('anecdotes/link', tarfile.SYMTYPE, str(outside)),
                    member('anecdotes/link/through.txt', data=b'x')],
        'symlink-dotdot': [ok, member('anecdotes/up', tarfile.SYMTYPE, '../..'), member('anecdotes/up/x.txt', data=b'x')],
        'hardlink': [ok, member('anecdotes/hard', tarfile.LNKTYPE, str(outside/'secret.txt'))],
        'device': [ok, member('anecdotes/null', tarfile.CHRTYPE)],
        'fifo': [ok, member('anecdotes/pipe', tarfile.FIFOTYPE)],
        'outside-root': [ok, member(CHECKSUMS_FILE, data=b'{}')],
        'root-not-a-folder': [member('anecdotes', data=b'x')],
        'backslash-outside-root': [ok, member('anecdotes\\..\\x', data=b'x'), member('anecdotes\\x', data=b'x')],
        'link-to-dest': [ok, member('anecdotes/up', tarfile.SYMTYPE, '..'), member('anecdotes/up/checksums.json', data=b'{}')],
    }


@pytest.mark.parametrize('case', list(malicious_archives(Path('/x'))))
def test_malicious_archive_is_refused(tmp_path, server, case):
    outside = tmp_path/'outside'
    outside.mkdir()
    (outside/'secret.txt').write_text('secret')
    dest = tmp_path/'deep'/'data'
    server.serve('anecdotes', make_tar(*malicious_archives(outside)[case]))
    before = tree(tmp_path)
    with pytest.raises(FetchError, match='refusing to extract unsafe members'):
        fetch_quiet(dest, server, which='anecdotes')
    assert tree(tmp_path) == {**before, 'deep': None, 'deep/data': None}  # dest made, nothing else written
    assert list(dest.iterdir()) == []


def test_safe_extract_is_all_or_nothing(tmp_path):
    archive = tmp_path/'a.tar.gz'
    archive.write_bytes(release('dilemmas'))
    dest = tmp_path/'dest'
    assert safe_extract(archive, dest) == [dest/'dilemmas']
    (dest/'dilemmas'/'stale.txt').write_text('from an older release')
    archive.write_bytes(release('dilemmas', tag='v2'))
    assert safe_extract(archive, dest, root='dilemmas') == [dest/'dilemmas']  # replaced as a whole
    assert not (dest/'dilemmas'/'stale.txt').exists() and 'v2' in (dest/'dilemmas'/'README').read_text()
    before = tree(tmp_path)
    archive.write_bytes(make_tar(member('dilemmas/new.txt', data=b'x'), member('other/x.txt', data=b'x')))
    with pytest.raises(FetchError, match="'other' \\(outside dilemmas/\\)"):
        safe_extract(archive, dest, root='dilemmas')
    archive.write_bytes(b'not a tar file')
    with pytest.raises(FetchError, match='cannot extract'):
        safe_extract(archive, dest)
    archive.write_bytes(release('dilemmas')[:-200])  # truncated gzip stream
    with pytest.raises(FetchError, match='cannot extract'):
        safe_extract(archive, dest)
    assert {k: v for k, v in tree(tmp_path).items() if k != 'a.tar.gz'} == \
           {k: v for k, v in before.items() if k != 'a.tar.gz'}


def test_http_404_names_the_url(tmp_path, server):
    with pytest.raises(FetchError, match=f'could not download {server.urls["dilemmas"]}: 404'):
        fetch_quiet(tmp_path/'data', server, which='dilemmas')
    assert list((tmp_path/'data').iterdir()) == []


def test_connection_refused(tmp_path):
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]  # free once closed: nothing listens there
    url = f'http://127.0.0.1:{port}/dilemmas.tar.gz'
    with pytest.raises(FetchError, match=f'could not download {url}'):
        fetch('dilemmas', dest=tmp_path, urls={'dilemmas': url}, progress=False)


def test_force_downloads_and_extracts_again(tmp_path, served):
    dest = tmp_path/'data'
    fetch_quiet(dest, served)
    dev = dest/'dilemmas'/'dev.scruples-dilemmas.jsonl'
    original = dev.read_bytes()
    dev.write_text('edited by hand\n')
    fetch_quiet(dest, served)  # no force: the verified copy is kept as it is
    assert dev.read_text() == 'edited by hand\n' and served.hits['/dilemmas.tar.gz'] == 1
    fetch_quiet(dest, served, force=True)
    assert dev.read_bytes() == original
    assert served.hits == {'/anecdotes.tar.gz': 2, '/dilemmas.tar.gz': 2}
    assert sorted(p.name for p in dest.iterdir()) == ['anecdotes', 'anecdotes.tar.gz', CHECKSUMS_FILE,
                                                      'dilemmas', 'dilemmas.tar.gz']


def test_reextracts_verified_local_tarball_offline(tmp_path, served):
    dest = tmp_path/'data'
    fetch_quiet(dest, served)
    for p in sorted((dest/'anecdotes').iterdir()): p.unlink()
    (dest/'anecdotes').rmdir()
    served.files.clear()  # offline
    fetch_quiet(dest, served)
    assert (dest/'anecdotes'/'test.scruples-anecdotes.jsonl').is_file()
    assert served.hits == {'/anecdotes.tar.gz': 1, '/dilemmas.tar.gz': 1}


def test_adopts_tarball_put_in_place_by_hand(tmp_path, server):
    dest = tmp_path/'data'
    dest.mkdir()
    data = release('dilemmas')
    (dest/'dilemmas.tar.gz').write_bytes(data)
    fetch_quiet(dest, server, which='dilemmas')  # the server has nothing: no download needed
    assert (dest/'dilemmas'/'train-extra.scruples-dilemmas.jsonl').is_file() and server.hits == {}
    rec = json.loads((dest/CHECKSUMS_FILE).read_text())['dilemmas.tar.gz']
    assert rec['sha256'] == sha256(data) and rec['url'].startswith('file://')


def test_archive_without_expected_folder(tmp_path, server):
    server.serve('dilemmas', make_tar())
    with pytest.raises(FetchError, match='has no dilemmas/ folder'):
        fetch_quiet(tmp_path/'data', server, which='dilemmas')
    assert list((tmp_path/'data').iterdir()) == []


def test_unknown_archive_and_corrupt_record(tmp_path, served):
    with pytest.raises(FetchError, match="unknown archive 'poems'"):
        fetch('poems', dest=tmp_path)
    (tmp_path/CHECKSUMS_FILE).write_text('{not json')
    with pytest.raises(FetchError, match='is corrupt'):
        fetch_quiet(tmp_path, served)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from(['a', 'b', '..', '.', '', '/', 'C:']), min_size=1, max_size=5),
                          st.sampled_from(['file', 'dir', 'symlink', 'hardlink']),
                          st.lists(st.sampled_from(['a', 'b', '..', '.', '/']), max_size=4)),
                min_size=1, max_size=5))
def test_safe_extract_never_writes_outside(spec):
    "Whatever the member names and link targets, extraction either stays inside dest or refuses everything."
    kinds = {'file': tarfile.REGTYPE, 'dir': tarfile.DIRTYPE, 'symlink': tarfile.SYMTYPE, 'hardlink': tarfile.LNKTYPE}
    members = [member('/'.join(parts), kinds[kind], '/'.join(link), b'x' if kind == 'file' else b'')
               for parts, kind, link in spec]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        archive, dest = root/'a.tar', root/'box'/'dest'
        archive.write_bytes(make_tar(*members))
        try: safe_extract(archive, dest)
        except FetchError: assert list(dest.iterdir()) == []
        assert sorted(p.name for p in root.iterdir()) == ['a.tar', 'box']
        assert [p.name for p in (root/'box').iterdir()] == ['dest']
        top = os.path.realpath(dest)
        for p in dest.rglob('*'):  # every path, links followed, stays inside
            try: real = os.path.realpath(p, strict=True)
            except OSError as err:
                if err.errno == errno.ELOOP: continue  # a link loop points nowhere
                real = os.path.realpath(p)  # a dangling link: where it would point
            assert os.path.commonpath([top, real]) == top


def test_safe_extract_refuses_a_link_named_with_a_trailing_slash_out_of_dest(tmp_path):
    "A symlink member 'a/' -> '..': tarfile's filter judged it from inside 'a' and let it through, out of dest once placed."
    archive, dest = tmp_path/'a.tar', tmp_path/'box'/'dest'
    archive.write_bytes(make_tar(member('a/', tarfile.SYMTYPE, '..', b'')))
    with pytest.raises(FetchError, match='a link out of the archive'):
        safe_extract(archive, dest)
    assert list(dest.iterdir()) == []
