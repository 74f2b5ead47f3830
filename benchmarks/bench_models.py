"""Fine-tuning and inference throughput of `scruples.models` beside `transformers.Trainer` and beside the machine's limit,
and the frozen-encoder mode's time beside one epoch of fine-tuning.

Same model (all-MiniLM-L6-v2 with one score per action), same dev pairs, same batch size, same soft-label loss, one
epoch each, measured in one run (the ratios are the result; absolute numbers move with the machine's load, printed by
`uptime` before and after). Three trainings: ours as it runs now (batches of similar length, bf16 autocast where the
device computes bf16 natively), ours the plain way (shuffled batches, fp32: the loop before issue 33), and `Trainer`.
The machine's limit is the matrix-multiply rate measured here (GFLOPS) over the model's FLOPs per token.

  python benchmarks/bench_models.py [--pairs 256] [--test 512] [--batch 32] [--device cpu]
Needs `accelerate` for the Trainer.
"""
import argparse, dataclasses, subprocess, time, warnings
import numpy as np
import torch

from scruples import models as M
from scruples.likelihoods import SoftLoss


class _PairModel(torch.nn.Module):
    "The Trainer's view of the same scorer: two actions in, the soft-label loss and the pair logits out."
    def __init__(self, scorer):
        super().__init__(); self.scorer, self.loss = scorer, SoftLoss()
    def forward(self, input_ids, attention_mask, labels=None):
        n = input_ids.shape[0]
        ids = torch.cat([input_ids[:, 0], input_ids[:, 1]]); mask = torch.cat([attention_mask[:, 0], attention_mask[:, 1]])
        s = self.scorer(ids, mask).view(2, n).T
        return {'loss': self.loss(s, labels), 'logits': s} if labels is not None else {'logits': s}


def _collate(tok, max_length):
    def collate(rows):
        texts = [r['a1'] for r in rows] + [r['a2'] for r in rows]
        enc = tok(texts, truncation=True, max_length=max_length, padding=True, return_tensors='pt')
        n = len(rows)
        out = {'input_ids': torch.stack([enc['input_ids'][:n], enc['input_ids'][n:]], 1),
               'attention_mask': torch.stack([enc['attention_mask'][:n], enc['attention_mask'][n:]], 1)}
        if 'labels' in rows[0]: out['labels'] = torch.tensor(np.array([r['labels'] for r in rows]), dtype=torch.float32)
        return out
    return collate


def _uptime() -> str: return subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()


def _gflops(device, dtype, n=1024, reps=10) -> float:
    "Measured matrix-multiply rate (GFLOPS) of n x n matrices on `device` in `dtype`: the machine's limit."
    a, b = torch.randn(n, n, device=device, dtype=dtype), torch.randn(n, n, device=device, dtype=dtype)
    a @ b
    if device.startswith('cuda'): torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps): a @ b
    if device.startswith('cuda'): torch.cuda.synchronize()
    return 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9


def _flops_per_token(enc, seq: float) -> float:
    "Forward FLOPs per token: 2 per weight of the transformer layers, plus attention's scores and mixing (4 * seq * d per layer)."
    c = enc.config
    n = sum(p.numel() for name, p in enc.named_parameters() if 'embeddings' not in name and p.ndim == 2)
    return 2 * n + 4 * c.num_hidden_layers * seq * c.hidden_size


def _train_ours(X, Y, cfg, model, tokens_all, max_length):
    torch.manual_seed(0); tok, enc = M.load_encoder(model, progress=False); ours = M.EncoderScorer(enc)
    tokens = M._Tokens(tok, tokens_all, max_length)
    torch.manual_seed(0)
    t0, c0 = time.perf_counter(), time.process_time(); M.train_model(ours, tokens, X, Y, X[:32], Y[:32], True, cfg)
    return ours, tokens, time.perf_counter() - t0, time.process_time() - c0


def main(X, Y, Xt, Yt, batch=32, device='cpu', max_length=92, source='real', model=None):
    "Time one epoch of training on the pairs X (label counts Y) and inference on Xt: ours now, ours plain, Trainer."
    from transformers import Trainer, TrainingArguments
    from scruples.evaluation import score_predictions
    print('before:', _uptime())
    threads = M.set_threads(M.pick_device(device))
    print(f'{source} dev pairs: {len(X)} to train, {len(Xt)} test pairs; batch {batch}; device {device}; torch threads {threads}; '
          f'native bf16: {M.fast_bf16(device)}')
    cfg = M.TrainConfig(likelihood='soft', epochs=1, batch_size=batch, warmup=0.1, device=device, progress=False,
                        average_top=1, eval_batch_size=128, max_length=max_length)
    plain = dataclasses.replace(cfg, group_by_length=False, bf16=False)
    texts = list(X.ravel()) + list(Xt.ravel())
    _train_ours(X[:64], Y[:64], plain, model, texts, max_length)  # start-up (threads, kernels) outside every timing
    ours, tokens, t_ours, c_ours = _train_ours(X, Y, cfg, model, texts, max_length)
    _, _, t_plain, c_plain = _train_ours(X, Y, plain, model, texts, max_length)
    t0 = time.perf_counter(); z_fp32 = M.predict_logits(ours, tokens, Xt, True, cfg)  # the rule: fp32 on CPUs
    i_ours = time.perf_counter() - t0
    t0 = time.perf_counter(); z_bf16 = M.predict_logits(ours, tokens, Xt, True, cfg, bf16=True); i_bf16 = time.perf_counter() - t0
    # reference: transformers.Trainer on the same scorer, data and loss (its defaults: shuffled batches, fp32 on CPU)
    torch.manual_seed(0); tok, enc = M.load_encoder(model, progress=False); ref = _PairModel(M.EncoderScorer(enc))
    rows = [{'a1': a, 'a2': b, 'labels': y / y.sum()} for (a, b), y in zip(X, Y)]
    args = TrainingArguments(output_dir='/tmp/bench_models_trainer', per_device_train_batch_size=batch, per_device_eval_batch_size=128,
                             num_train_epochs=1, learning_rate=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=0.1,
                             save_strategy='no', report_to=[], logging_strategy='no', eval_strategy='epoch', use_cpu=device == 'cpu',
                             dataloader_num_workers=0, remove_unused_columns=False, disable_tqdm=True)
    trainer = Trainer(model=ref, args=args, train_dataset=rows, eval_dataset=rows[:32], data_collator=_collate(tok, max_length))
    t0, c0 = time.perf_counter(), time.process_time(); trainer.train(); t_ref, c_ref = time.perf_counter() - t0, time.process_time() - c0
    t0 = time.perf_counter(); trainer.predict([{'a1': a, 'a2': b} for a, b in Xt]); i_ref = time.perf_counter() - t0
    n = 2 * len(X)  # texts per epoch
    print(f'training  pairs/s: ours {len(X) / t_ours:8.1f}   Trainer {len(X) / t_ref:8.1f}   ratio {t_ref / t_ours:.2f}x (goal >= 1.00x); '
          f'CPU s ours {c_ours:.1f} Trainer {c_ref:.1f}, CPU ratio {c_ref / c_ours:.2f}x')
    print(f'training  texts/s: ours {n / t_ours:.1f}, ours plain (fp32, shuffled batches) {n / t_plain:.1f}, Trainer {n / t_ref:.1f}; '
          f'speed-up of the fine-tune over the plain loop {t_plain / t_ours:.2f}x (CPU {c_plain / c_ours:.2f}x)')
    print(f'inference pairs/s: ours {len(Xt) / i_ours:8.1f}   Trainer {len(Xt) / i_ref:8.1f}   ratio {i_ref / i_ours:.2f}x (goal: keep > 1x)')
    with warnings.catch_warnings():  # uncalibrated scores of both precisions: in-sample calibration is not the point here
        warnings.simplefilter('ignore')
        s_bf16, s_fp32 = (score_predictions(M._softmax(z), Yt, n_boot=0) for z in (z_bf16, z_fp32))
    dp = np.abs(M._softmax(z_bf16) - M._softmax(z_fp32)).max()
    print(f'inference precision: bf16 autocast {len(Xt) / i_bf16:.1f} pairs/s vs fp32 {len(Xt) / i_ours:.1f} '
          f'({i_ours / i_bf16:.2f}x); max |p_bf16 - p_fp32| {dp:.4f}; test F1 {s_bf16["f1"]:.4f} vs {s_fp32["f1"]:.4f}, '
          f'cross-entropy {s_bf16["xentropy"]:.4f} vs {s_fp32["xentropy"]:.4f}: ours keeps fp32 on CPUs')
    # the machine's limit: matmul GFLOPS over FLOPs per text (the padded width of our batches)
    lens = M._example_lengths(tokens, X, True)
    widths = [lens[b].max() for b in M.epoch_batches(lens, cfg, 0)]
    seq = float(np.mean(widths))
    fwd = _flops_per_token(ours.encoder, seq)
    g = _gflops(device, torch.bfloat16 if M.fast_bf16(device) else torch.float32)  # training's precision
    g32 = _gflops(device, torch.float32)  # inference's on CPUs
    limit_train = g * 1e9 / (3 * fwd * seq); limit_inf = g32 * 1e9 / (fwd * seq)
    print(f'machine limit: {g:.0f} GFLOPS training matmul, {g32:.0f} fp32 (measured); '
          f'MiniLM {fwd / 1e6:.1f} MFLOPs per token forward, '
          f'{seq:.1f} tokens per text (padded): training at most {limit_train:.0f} texts/s, ours {n / t_ours:.0f} '
          f'({100 * n / t_ours / limit_train:.0f}% of the limit); inference at most {limit_inf:.0f} texts/s, ours '
          f'{2 * len(Xt) / i_ours:.0f} ({100 * 2 * len(Xt) / i_ours / limit_inf:.0f}%)')
    # the frozen mode: embed every training text once (no cache) and fit the four heads, beside one epoch of fine-tuning
    tr, va = np.arange(len(X))[len(X) // 5:], np.arange(len(X))[:len(X) // 5]
    t0 = time.perf_counter()
    E = M.embed_texts(list(X.ravel()), model, max_length, device, cache=False).reshape(len(X), 2, -1)
    t_emb = time.perf_counter() - t0
    for lik in M.LIKELIHOODS: M.fit_head(E[tr], Y[tr], E[va], Y[va], dataclasses.replace(cfg, likelihood=lik))
    t_frozen = time.perf_counter() - t0
    print(f'frozen mode: {t_frozen:.1f} s for all four likelihoods (embedding {t_emb:.1f} s, heads {t_frozen - t_emb:.1f} s) '
          f'vs one epoch of one fine-tune {t_ours:.1f} s: {4 * t_ours / t_frozen:.0f}x less than fine-tuning the four for one epoch')
    print(f'3 epochs x 4 likelihoods on the 1,872 training pairs of dev at this speed: about '
          f'{4 * 3 * 1872 / (len(X) / t_ours) / 60:.1f} minutes (ours), {4 * 3 * 1872 / (len(X) / t_plain) / 60:.1f} (plain)')
    print('after:', _uptime())


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--pairs', type=int, default=256); ap.add_argument('--test', type=int, default=512)
    ap.add_argument('--batch', type=int, default=32); ap.add_argument('--device', default='cpu')
    a = ap.parse_args()
    from scruples.data import label_counts
    from scruples.corpus import load_dilemmas
    dev, test = load_dilemmas('dev'), load_dilemmas('test')
    X = M.as_pairs(dev)[:a.pairs]; Y = label_counts(dev)[:a.pairs]
    Xt = M.as_pairs(test)[:a.test]; Yt = label_counts(test)[:a.test]
    main(X, Y, Xt, Yt, a.batch, a.device, source=dev.attrs.get('source', 'real'))
