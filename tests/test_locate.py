"""Where the data is looked for: explicit folder, then $SCRUPLES_DATA, then the checkout's ../shared/data, then the user cache."""
import json
from pathlib import Path

import pytest

import scruples.core as sco
import scruples.data as sd
import scruples.fetch as sf
import scruples.corpus as scorp
REPO_ROOT = Path(__file__).resolve().parents[1]

DILEMMA = {'id': 'd1', 'actions': [{'id': 'a1', 'description': 'telling my sister'}, {'id': 'a2', 'description': 'not going'}],
           'gold_annotations': [4, 1], 'gold_label': 0, 'human_perf_annotations': [3, 2], 'human_perf_label': 0,
           'controversial': True}
CONTENT = {  # kind -> a valid file of that kind
    'anecdotes': json.dumps({'id': 'x', 'post_id': 'p', 'action': None, 'title': 't', 'text': 'x', 'post_type': 'HISTORICAL',
                             'label_scores': {'AUTHOR': 1, 'OTHER': 2, 'EVERYBODY': 0, 'NOBODY': 0, 'INFO': 0},
                             'label': 'OTHER', 'binarized_label_scores': {'RIGHT': 2, 'WRONG': 1}, 'binarized_label': 'RIGHT'}) + '\n',
    'dilemmas': json.dumps(DILEMMA) + '\n',
    'anecdotes-label-counts': '[[1, 2, 3, 4, 5]]\n',
    'dilemmas-label-counts': '[[4, 1]]\n',
}


def put(folder: Path, kind: str, split: str, layout: str = 'official', tag: str = '') -> Path:
    "Write a valid `kind`/`split` file into `folder` in the official (subfolder) or flat layout."
    official, flat = sf.FILE_PATTERNS[kind]
    p = folder/(official if layout == 'official' else flat).format(split=split)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = CONTENT[kind]
    if kind == 'dilemmas' and tag: text = json.dumps(dict(DILEMMA, id=tag)) + '\n'
    p.write_text(text)
    return p


@pytest.fixture
def world(tmp_path, monkeypatch, user_cache):
    "A fake checkout (with ../shared/data), an env folder and the cache, all empty; $SCRUPLES_DATA and $SCRUPLES_NO_SHARED unset."
    root = tmp_path/'checkout'/'main'
    shared = tmp_path/'checkout'/'shared'/'data'
    env = tmp_path/'env-data'
    for d in (root, shared, env): d.mkdir(parents=True)
    monkeypatch.setattr(sf, 'checkout_root', lambda: root)
    monkeypatch.delenv('SCRUPLES_DATA', raising=False)
    monkeypatch.delenv('SCRUPLES_NO_SHARED', raising=False)  # these tests are about the search order itself
    return {'root': root, 'shared': shared, 'env': env, 'cache': user_cache, 'tmp': tmp_path}


def test_no_shared_hides_the_checkout_data_and_the_cache(world, monkeypatch):
    "SCRUPLES_NO_SHARED=1 (the CI leg without data): only an explicit folder or $SCRUPLES_DATA are searched."
    assert sf.data_dirs() == [world['shared'], world['cache']]
    monkeypatch.setenv('SCRUPLES_NO_SHARED', '1')
    assert sf.data_dirs() == []
    monkeypatch.setenv('SCRUPLES_DATA', str(world['env']))
    assert sf.data_dirs() == [world['env']]
    monkeypatch.setenv('SCRUPLES_NO_SHARED', '0')  # 0 means off
    assert sf.data_dirs() == [world['env'], world['shared'], world['cache']]


def test_checkout_root_is_this_repository():
    assert sco.checkout_root() == REPO_ROOT


def test_user_cache_dir_follows_env(user_cache, monkeypatch, tmp_path):
    assert sf.user_cache_dir() == user_cache
    monkeypatch.setenv('SCRUPLES_CACHE', '~/scruples-cache-x')
    monkeypatch.setenv('HOME', str(tmp_path))
    assert sf.user_cache_dir() == tmp_path/'scruples-cache-x'
    monkeypatch.delenv('SCRUPLES_CACHE')
    assert sf.user_cache_dir().name == 'scruples'  # the platform cache folder


def test_search_order(world, monkeypatch):
    w = world
    assert sf.data_dirs() == [w['shared'], w['cache']]
    monkeypatch.setenv('SCRUPLES_DATA', str(w['env']))
    assert sf.data_dirs() == [w['env'], w['shared'], w['cache']]
    assert sf.data_dirs(w['tmp']) == [w['tmp']]


def test_missing_folders_are_left_out(world, monkeypatch):
    w = world
    w['shared'].rmdir()
    assert sf.data_dirs() == [w['cache']]
    monkeypatch.setattr(sf, 'checkout_root', lambda: None)  # an installed package: no checkout
    assert sf.data_dirs() == [w['cache']]


def test_explicit_data_dir_wins_and_is_exclusive(world, monkeypatch):
    w = world
    explicit = w['tmp']/'explicit'
    monkeypatch.setenv('SCRUPLES_DATA', str(w['env']))
    for d in (w['env'], w['shared'], w['cache']):
        put(d, 'dilemmas', 'dev', tag=d.name)
        put(d, 'dilemmas-label-counts', 'dev')
    mine = put(explicit, 'dilemmas', 'dev', tag='explicit')
    assert sf.find_file('dilemmas', 'dev', explicit) == mine
    assert sf.find_file('dilemmas', 'dev', str(explicit)) == mine  # str works too
    assert scorp.load_dilemmas('dev', data_dir=explicit)['id'].tolist() == ['explicit']
    with pytest.raises(FileNotFoundError, match=str(explicit)):  # found elsewhere, but only `explicit` is searched
        sf.find_file('dilemmas-label-counts', 'dev', explicit)
    assert sf.locate(explicit).path.notna().sum() == 1


def test_explicit_data_dir_must_exist(world):
    with pytest.raises(FileNotFoundError, match='does not exist'): sf.data_dirs(world['tmp']/'nope')
    with pytest.raises(FileNotFoundError): sf.find_file('dilemmas', 'dev', world['tmp']/'nope')


def test_env_beats_checkout_and_cache(world, monkeypatch):
    w = world
    put(w['shared'], 'dilemmas', 'dev', tag='shared')
    put(w['cache'], 'dilemmas', 'dev', tag='cache')
    assert scorp.load_dilemmas('dev')['id'].tolist() == ['shared']
    env_file = put(w['env'], 'dilemmas', 'dev', tag='env')
    monkeypatch.setenv('SCRUPLES_DATA', str(w['env']))
    assert sf.find_file('dilemmas', 'dev') == env_file
    assert scorp.load_dilemmas('dev')['id'].tolist() == ['env']


def test_env_beats_the_real_checkout_data(tmp_path, monkeypatch):
    "No fake checkout: $SCRUPLES_DATA is searched before this repository's ../shared/data."
    f = put(tmp_path, 'dilemmas', 'dev', tag='env')
    monkeypatch.setenv('SCRUPLES_DATA', str(tmp_path))
    assert sf.data_dirs()[0] == tmp_path
    assert sf.find_file('dilemmas', 'dev') == f


def test_checkout_shared_data_is_searched(monkeypatch):
    monkeypatch.delenv('SCRUPLES_DATA', raising=False)
    monkeypatch.delenv('SCRUPLES_NO_SHARED', raising=False)
    shared = REPO_ROOT.parent/'shared'/'data'
    if shared.is_dir(): assert sf.data_dirs()[0] == shared
    else: assert shared not in sf.data_dirs()


def test_nonexistent_env_folder_is_an_error(world, monkeypatch):
    monkeypatch.setenv('SCRUPLES_DATA', str(world['tmp']/'not-there'))
    for call in (sf.data_dirs, lambda: sf.find_file('dilemmas', 'dev'),
                 lambda: scorp.load_dilemmas('dev', synthetic=False), lambda: scorp.load_anecdotes('dev', synthetic=False)):
        with pytest.raises(FileNotFoundError, match=r'\$SCRUPLES_DATA') as ei: call()
        assert str(world['tmp']/'not-there') in str(ei.value)
    # but an explicit folder does not look at the variable
    assert sf.data_dirs(world['env']) == [world['env']]


@pytest.mark.parametrize('call', ['locate', 'load_dilemmas', 'load_dilemmas-data_dir'])
def test_nonexistent_env_folder_is_not_silently_ignored(world, monkeypatch, call):
    monkeypatch.setenv('SCRUPLES_DATA', str(world['tmp']/'not-there'))
    fn = {'locate': sf.locate, 'load_dilemmas': lambda: scorp.load_dilemmas('dev', n=5),
          'load_dilemmas-data_dir': lambda: scorp.load_dilemmas('dev', data_dir=world['tmp']/'not-there', n=5)}[call]
    with pytest.raises(FileNotFoundError): fn()


def test_env_naming_a_file_is_an_error(world, monkeypatch):
    f = world['tmp']/'a-file'
    f.write_text('x')
    monkeypatch.setenv('SCRUPLES_DATA', str(f))
    with pytest.raises(FileNotFoundError, match='SCRUPLES_DATA'): sf.data_dirs()


def test_empty_env_is_ignored(world, monkeypatch):
    monkeypatch.setenv('SCRUPLES_DATA', '')
    assert sf.data_dirs() == [world['shared'], world['cache']]


def test_env_expands_home(world, monkeypatch):
    monkeypatch.setenv('HOME', str(world['tmp']))
    monkeypatch.setenv('SCRUPLES_DATA', '~/env-data')
    assert sf.data_dirs()[0] == world['env']


def test_cache_is_used_last(world):
    w = world
    put(w['shared'], 'dilemmas', 'dev', tag='shared')
    put(w['cache'], 'dilemmas', 'dev', tag='cache')
    in_cache = put(w['cache'], 'dilemmas', 'test', tag='cache-test')
    assert scorp.load_dilemmas('dev')['id'].tolist() == ['shared']
    assert sf.find_file('dilemmas', 'test') == in_cache  # only the cache has it
    loc = sf.locate()
    assert loc.set_index(['kind', 'split']).loc[('dilemmas', 'test'), 'path'] == str(in_cache)


@pytest.mark.parametrize('kind', list(sf.FILE_PATTERNS))
@pytest.mark.parametrize('layout', ['official', 'flat'])
def test_layouts_resolve(tmp_path, kind, layout):
    split = sd.SPLITS[kind.split('-')[0]][-1]
    f = put(tmp_path, kind, split, layout)
    assert sf.find_file(kind, split, tmp_path) == f
    if layout == 'official': assert f.parent.name in ('anecdotes', 'dilemmas', 'label-counts')
    else: assert f.parent == tmp_path


def test_official_layout_is_preferred_to_flat(tmp_path):
    flat = put(tmp_path, 'dilemmas', 'dev', 'flat', tag='flat')
    assert sf.find_file('dilemmas', 'dev', tmp_path) == flat
    official = put(tmp_path, 'dilemmas', 'dev', 'official', tag='official')
    assert sf.find_file('dilemmas', 'dev', tmp_path) == official


def test_first_folder_with_the_file_wins_whatever_the_layout(world, monkeypatch):
    w = world
    monkeypatch.setenv('SCRUPLES_DATA', str(w['env']))
    env_flat = put(w['env'], 'dilemmas', 'dev', 'flat')
    put(w['shared'], 'dilemmas', 'dev', 'official')
    assert sf.find_file('dilemmas', 'dev') == env_flat


def test_unknown_kind(tmp_path):
    with pytest.raises(ValueError, match="unknown kind 'dilemma'"): sf.find_file('dilemma', 'dev', tmp_path)
    with pytest.raises(ValueError): sf.find_file('label-counts', 'dev', tmp_path)


def test_locate_frame(tmp_path):
    files = {(k, sd.SPLITS[k.split('-')[0]][0]): put(tmp_path, k, sd.SPLITS[k.split('-')[0]][0]) for k in sf.FILE_PATTERNS}
    loc = sf.locate(tmp_path)
    assert list(loc.columns) == ['kind', 'split', 'path']
    expected = [(k, s) for k in sf.FILE_PATTERNS for s in sd.SPLITS[k.split('-')[0]]]
    assert list(zip(loc.kind, loc.split)) == expected and len(loc) == 14
    for r in loc.itertuples():
        if (r.kind, r.split) in files: assert r.path == str(files[r.kind, r.split])
        else: assert r.path is None or r.path != r.path  # None or NaN


def test_nothing_found(tmp_path):
    empty = tmp_path/'empty'
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match='no dilemmas file') as ei: sf.find_file('dilemmas', 'dev', empty)
    assert str(empty) in str(ei.value) and 'SCRUPLES_DATA' in str(ei.value)
    assert sf.locate(empty).path.isna().all()
    for load in (scorp.load_anecdotes, scorp.load_dilemmas):
        with pytest.raises(FileNotFoundError): load('dev', data_dir=empty, synthetic=False)
    assert scorp.load_dilemmas('dev', data_dir=empty, n=10).attrs['source'] == 'synthetic'  # default: synthetic fallback
    with pytest.raises(FileNotFoundError, match='no dilemmas file'):  # no synthetic size for this split: say where we looked
        scorp.load_dilemmas('train-extra', data_dir=empty)
    with pytest.raises(ValueError, match='no published size'):
        scorp.load_dilemmas('train-extra', data_dir=empty, synthetic=True)


def test_synthetic_true_ignores_real_data(tmp_path):
    put(tmp_path, 'dilemmas', 'dev')
    put(tmp_path, 'anecdotes-label-counts', 'dev')
    assert scorp.load_dilemmas('dev', data_dir=tmp_path).attrs['source'] == 'real'
    d = scorp.load_dilemmas('dev', data_dir=tmp_path, synthetic=True, n=12)
    assert d.attrs['source'] == 'synthetic' and len(d) == 12
    assert scorp.load_anecdotes('dev', data_dir=tmp_path).attrs['source'] == 'real-label-counts'
    assert scorp.load_anecdotes('dev', data_dir=tmp_path, synthetic=False).attrs['source'] == 'real-label-counts'


def test_synthetic_true_ignores_the_real_checkout_data(real_data_dir, monkeypatch):
    monkeypatch.setenv('SCRUPLES_DATA', str(real_data_dir))
    assert scorp.load_dilemmas('dev').attrs['source'] == 'real'
    assert scorp.load_dilemmas('dev', synthetic=True, n=5).attrs['source'] == 'synthetic'


def test_load_anecdotes_prefers_texts_to_label_counts(tmp_path):
    put(tmp_path, 'anecdotes-label-counts', 'dev')
    df = scorp.load_anecdotes('dev', data_dir=tmp_path)
    assert df.attrs['source'] == 'real-label-counts' and tuple(df.columns) == sd.ANECDOTES_COLUMNS
    assert sd.label_counts(df).tolist() == [[1, 2, 3, 4, 5]] and df['title'].isna().all()
    put(tmp_path, 'anecdotes', 'dev')
    df = scorp.load_anecdotes('dev', data_dir=tmp_path)
    assert df.attrs['source'] == 'real' and df['title'].tolist() == ['t']


def test_synthetic_split_without_published_size():
    with pytest.raises((FileNotFoundError, ValueError)): scorp.load_dilemmas('train-extra', synthetic=True)
