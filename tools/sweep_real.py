"""Train one setting of the real-sentence run on the CPU (one thread) and score it with several beams.

A sweep is several of these, one process each: ``python tools/sweep_real.py --model transformer
--epochs 10 --out sweep-tf10.json``. Each writes its setting, the CPU seconds of training
(``time.process_time``), the validation curve and, per beam, the held-out BLEU (every reference, and the
first only) and chrF, so that settings are compared by CPU time on a shared machine.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, replace

import torch

from attnbook.nmt import evaluate_real
from attnbook.nmt.corpus import load_tatoeba, shipped_path
from attnbook.nmt.transformer import TransformerSizes
from attnbook.studies import comparison_model_config
from attnbook.studies.realdata import RealConfig, prepare_real_data
from attnbook.studies.recipe import run_once


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("bahdanau", "transformer"), default="bahdanau")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--emb-dim", type=int, default=None)
    parser.add_argument("--hidden-dim", type=int, default=None)
    parser.add_argument("--d-model", type=int, default=None)
    parser.add_argument("--ff-dim", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--beams", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    base = RealConfig()
    train_config = replace(base.train, max_epochs=args.epochs, lr=args.lr or base.train.lr)
    model = replace(
        base.model,
        emb_dim=args.emb_dim or base.model.emb_dim,
        hidden_dim=args.hidden_dim or base.model.hidden_dim,
    )
    default_sizes = TransformerSizes()
    sizes = replace(
        default_sizes,
        d_model=args.d_model or default_sizes.d_model,
        ff_dim=args.ff_dim or default_sizes.ff_dim,
    )
    config = comparison_model_config(
        replace(base, train=train_config, model=model), args.model, args.seed, sizes
    )
    pairs = load_tatoeba(shipped_path()).pairs
    data = prepare_real_data(pairs, config.data)
    run = run_once(config, data)
    translator, result, cpu_seconds = run.translator, run.training, run.cpu_seconds
    scores = {}
    for beam in args.beams:
        score = evaluate_real(translator, data.split.test, beam_size=beam).score
        scores[beam] = {"bleu": score.bleu, "bleu_single": score.bleu_single, "chrf": score.chrf}
    record = {
        "setting": vars(args),
        "model": asdict(config.model),
        "train": config.train.to_dict(),
        "parameters": sum(p.numel() for p in translator.model.parameters()),
        "steps": result.steps,
        "cpu_seconds": cpu_seconds,
        "wall_seconds": result.seconds,
        "val": [(r.step, r.loss) for r in result.val_history],
        "scores": scores,
        "signature": score.bleu_signature,
    }
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(record, out, indent=1)
    print(json.dumps(record["scores"]), cpu_seconds)


if __name__ == "__main__":
    main()
