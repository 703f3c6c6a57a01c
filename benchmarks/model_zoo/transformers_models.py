"""GPT-2, a Llama-style decoder and a BERT classifier built from transformers' config classes: random
init, nothing downloaded. transformers is imported only when a model is built, so the zoo loads without it.
Dropout is off (as in builtin.py), so that two devices given one seed compute the same thing."""
from typing import Callable, List, Tuple

import torch

# transformers' own vocabulary sizes for these models; the quick sizes use a small one.
STANDARD_VOCAB = {"gpt2": 50257, "llama": 32000, "bert": 30522}
QUICK_VOCAB = 1000


def _gpt2(lm, vocab):
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=vocab, n_layer=lm.layers, n_embd=lm.dim, n_head=lm.heads,
                        n_positions=max(1024, lm.seq), resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        use_cache=False)
    return GPT2LMHeadModel(config)


def _llama(lm, vocab):
    from transformers import LlamaConfig, LlamaForCausalLM
    # Llama's feed-forward width is about 8/3 of d, rounded up to a multiple of 32 (11008 for d=4096).
    hidden = (lm.dim * 8 // 3 + 31) // 32 * 32
    config = LlamaConfig(vocab_size=vocab, hidden_size=lm.dim, intermediate_size=hidden, num_hidden_layers=lm.layers,
                         num_attention_heads=lm.heads, num_key_value_heads=lm.heads,
                         max_position_embeddings=max(2048, lm.seq), use_cache=False)
    return LlamaForCausalLM(config)


def _bert(lm, vocab):
    from transformers import BertConfig, BertForSequenceClassification
    config = BertConfig(vocab_size=vocab, hidden_size=lm.dim, num_hidden_layers=lm.layers,
                        num_attention_heads=lm.heads, intermediate_size=4 * lm.dim,
                        max_position_embeddings=max(512, lm.seq), hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0, num_labels=2)
    return BertForSequenceClassification(config)


def builders(lm, quick: bool) -> List[Tuple[str, Callable, int]]:
    """(name, build(), vocabulary size) for each model."""
    out = []
    for name, build in (("gpt2", _gpt2), ("llama", _llama), ("bert", _bert)):
        vocab = QUICK_VOCAB if quick else STANDARD_VOCAB[name]
        out.append((name, (lambda build=build, vocab=vocab: build(lm, vocab)), vocab))
    return out


def published_gpt2(lm_class, quick: bool):
    """GPT-2 small at its published shape (124M parameters: 12 layers, d 768, 12 heads, vocabulary 50257) trained at
    batch 8, sequence 512: the shape people train, where the smaller default configuration hides per-op costs
    that grow with size. (sizes, build(), vocabulary size); quick: the quick sizes."""
    sizes = lm_class(2, 64, 4, 32, 2) if quick else lm_class(12, 768, 12, 512, 8)
    vocab = QUICK_VOCAB if quick else STANDARD_VOCAB["gpt2"]
    return sizes, (lambda: _gpt2(sizes, vocab)), vocab


def batch(name: str, lm, vocab: int):
    def make(generator):
        ids = torch.randint(0, vocab, (lm.batch, lm.seq), generator=generator)
        if name == "bert":  # sequence classification: two classes
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids),
                    "labels": torch.randint(0, 2, (lm.batch,), generator=generator)}
        return {"input_ids": ids, "labels": ids}  # causal LM: the model shifts the labels itself
    return make


def loss(model, batch):
    return model(**batch).loss


def forward(model, batch):
    return model(**{k: v for k, v in batch.items() if k != "labels"}).logits
