"""Training and inference throughput (pairs/s) of `scruples.models` against a plain `transformers.Trainer` loop.

Same model (all-MiniLM-L6-v2 with one score per action), same dev pairs, same batch size, same soft-label loss, one
epoch each, measured in one run (the ratio is the result; absolute numbers move with the machine's load).

  python benchmarks/bench_models.py [--pairs 256] [--test 512] [--batch 32] [--device cpu]
Needs `accelerate` for the Trainer.
"""
import argparse, os, time
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


def _warm(tok_enc, X, device, max_length):
    "One forward and backward pass before any timing, so neither side pays the device's start-up."
    tok, enc = tok_enc; m = M.EncoderScorer(enc).to(device)
    b = tok(list(X[:32].ravel()), truncation=True, max_length=max_length, padding=True, return_tensors='pt').to(device)
    with torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=device.startswith('cuda')):
        m(b['input_ids'], b['attention_mask']).sum().backward()
    if device.startswith('cuda'): torch.cuda.synchronize()


def main(X, Y, Xt, batch=32, device='cpu', max_length=92, source='real', model=None, repeat=1):
    "Time one epoch of training on the pairs X (label counts Y) and inference on Xt, ours vs transformers.Trainer."
    from transformers import Trainer, TrainingArguments
    print(f'{source} dev pairs: {len(X)} to train, {len(Xt)} test pairs; batch {batch}; device {device}; '
          f'torch threads {torch.get_num_threads()}')
    cfg = M.TrainConfig(likelihood='soft', epochs=1, batch_size=batch, warmup=0.1, device=device, progress=False,
                        average_top=1, eval_batch_size=128, max_length=max_length)
    _warm(M.load_encoder(model), X, device, max_length)  # CUDA/kernel start-up outside both timings
    for rep in range(repeat):  # on a GPU the first pass pays one-off costs (kernel selection per shape): time the last
        # ours: train_model (incl. its held-out evaluation on 32 pairs, as the Trainer's eval_strategy='epoch') and predict_logits
        torch.manual_seed(0); tok, enc = M.load_encoder(model); ours = M.EncoderScorer(enc)
        tokens = M._Tokens(tok, list(X.ravel()) + list(Xt.ravel()), max_length)
        torch.manual_seed(0)
        t0, c0 = time.perf_counter(), time.process_time(); M.train_model(ours, tokens, X, Y, X[:32], Y[:32], True, cfg)
        t_ours, c_ours = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter(); M.predict_logits(ours, tokens, Xt, True, cfg); i_ours = time.perf_counter() - t0
        # reference: transformers.Trainer on the same scorer, data and loss
        torch.manual_seed(0); tok, enc = M.load_encoder(model); ref = _PairModel(M.EncoderScorer(enc))
        rows = [{'a1': a, 'a2': b, 'labels': y / y.sum()} for (a, b), y in zip(X, Y)]
        val_rows = rows[:32]  # like ours: a held-out evaluation after the epoch (ours needs it for early stopping)
        args = TrainingArguments(output_dir='/tmp/bench_models_trainer', per_device_train_batch_size=batch, per_device_eval_batch_size=128,
                                 num_train_epochs=1, learning_rate=cfg.lr, weight_decay=cfg.weight_decay, warmup_steps=0.1,  # a float below 1 is a ratio in transformers 5
                                 save_strategy='no', report_to=[], logging_strategy='no', eval_strategy='epoch', use_cpu=device == 'cpu',
                                 dataloader_num_workers=0, remove_unused_columns=False, disable_tqdm=True)
        trainer = Trainer(model=ref, args=args, train_dataset=rows, eval_dataset=val_rows, data_collator=_collate(tok, max_length))
        t0, c0 = time.perf_counter(), time.process_time(); trainer.train(); t_ref, c_ref = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter(); trainer.predict([{'a1': a, 'a2': b} for a, b in Xt]); i_ref = time.perf_counter() - t0
        print(f'  pass {rep + 1}: train s ours {t_ours:.2f} Trainer {t_ref:.2f}; inference s ours {i_ours:.2f} Trainer {i_ref:.2f}')
    print(f'training  pairs/s: ours {len(X) / t_ours:8.1f}   Trainer {len(X) / t_ref:8.1f}   ratio {t_ref / t_ours:.2f}x (goal >= 1.00x); '
          f'CPU s ours {c_ours:.1f} Trainer {c_ref:.1f}, CPU ratio {c_ref / c_ours:.2f}x')
    print(f'inference pairs/s: ours {len(Xt) / i_ours:8.1f}   Trainer {len(Xt) / i_ref:8.1f}   ratio {i_ref / i_ours:.2f}x (goal: keep > 1x)')
    est = 3 * 1872 / (len(X) / t_ours) / 60
    print(f'3 epochs on the 1,872 training pairs of dev at this speed: about {est:.1f} minutes (ours)')


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--pairs', type=int, default=256); ap.add_argument('--test', type=int, default=512)
    ap.add_argument('--batch', type=int, default=32); ap.add_argument('--device', default='cpu'); ap.add_argument('--repeat', type=int, default=1)
    a = ap.parse_args()
    from scruples.data import label_counts
    from scruples.corpus import load_dilemmas
    dev, test = load_dilemmas('dev'), load_dilemmas('test')
    X = M.as_pairs(list(zip(dev.action_1, dev.action_2)))[:a.pairs]; Y = label_counts(dev)[:a.pairs]
    Xt = M.as_pairs(list(zip(test.action_1, test.action_2)))[:a.test]
    main(X, Y, Xt, a.batch, a.device, source=dev.attrs.get('source', 'real'), repeat=a.repeat)
