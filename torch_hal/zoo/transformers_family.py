"""The zoo's transformers family: architectures built from their config classes at tiny sizes (2 layers, width 32,
vocabulary 128), random init, nothing downloaded. Decoder LMs (a mixture of experts: Mixtral, Qwen2-MoE; a
state-space model: Mamba), encoders, encoder-decoders, speech, vision and vision-language models. The generative ones
(decoders, T5, BART) also decode 4 tokens greedily before training (end of sequence suppressed until then): both
sides must give the same tokens. Every dropout probability of the config is 0 (attention dropout is functional, so
the module walk of case.make_deterministic would not find it), and so are layer drop and wav2vec2's time and feature
masking. Imports torch alone until a model is built (hal_free.py says why).
"""
from typing import Dict, List

import torch

from . import import_package
from .case import ZooModel

VOCAB, BATCH, SEQ, IMAGE = 128, 2, 8, 32
SPECIAL = dict(vocab_size=VOCAB, pad_token_id=0, bos_token_id=1, eos_token_id=2)
LLAMA_LIKE = dict(SPECIAL, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=64)
BERT_LIKE = dict(SPECIAL, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                 max_position_embeddings=64, num_labels=3)
SEQ2SEQ = dict(SPECIAL, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
               decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64)
VISION = dict(image_size=IMAGE, num_channels=3, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
              num_attention_heads=4)
# Names of config attributes that draw random numbers in training when above 0.
RANDOM_CONFIG = ("dropout", "pdrop", "drop_path", "layerdrop", "mask_time_prob", "mask_feature_prob")

# name: (config class, model class, config arguments, kind). Kinds: causal_lm, classifier, seq2seq, whisper, ctc,
# image_classifier, contrastive.
MODELS: Dict[str, tuple] = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel", dict(SPECIAL, n_embd=32, n_layer=2, n_head=4, n_positions=64),
             "causal_lm"),
    "llama": ("LlamaConfig", "LlamaForCausalLM", LLAMA_LIKE, "causal_lm"),
    "mistral": ("MistralConfig", "MistralForCausalLM", LLAMA_LIKE, "causal_lm"),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", LLAMA_LIKE, "causal_lm"),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM", dict(LLAMA_LIKE, head_dim=8), "causal_lm"),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", dict(LLAMA_LIKE, head_dim=8), "causal_lm"),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM", dict(LLAMA_LIKE, head_dim=8, sliding_window=4), "causal_lm"),
    "phi": ("PhiConfig", "PhiForCausalLM", dict(LLAMA_LIKE, partial_rotary_factor=0.5), "causal_lm"),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", LLAMA_LIKE, "causal_lm"),
    "olmo": ("OlmoConfig", "OlmoForCausalLM", LLAMA_LIKE, "causal_lm"),
    "opt": ("OPTConfig", "OPTForCausalLM", dict(SPECIAL, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                                                num_attention_heads=4, word_embed_proj_dim=32,
                                                max_position_embeddings=64), "causal_lm"),
    "gpt_neox": ("GPTNeoXConfig", "GPTNeoXForCausalLM", dict(LLAMA_LIKE, num_key_value_heads=None), "causal_lm"),
    "falcon": ("FalconConfig", "FalconForCausalLM", dict(SPECIAL, hidden_size=32, num_hidden_layers=2,
                                                         num_attention_heads=4), "causal_lm"),
    "bloom": ("BloomConfig", "BloomForCausalLM", dict(SPECIAL, hidden_size=32, n_layer=2, n_head=4), "causal_lm"),
    "gptj": ("GPTJConfig", "GPTJForCausalLM", dict(SPECIAL, n_embd=32, n_layer=2, n_head=4, rotary_dim=4,
                                                   n_positions=64), "causal_lm"),
    "mixtral": ("MixtralConfig", "MixtralForCausalLM", dict(LLAMA_LIKE, num_local_experts=4, num_experts_per_tok=2),
                "causal_lm"),
    "qwen2_moe": ("Qwen2MoeConfig", "Qwen2MoeForCausalLM",
                  dict(LLAMA_LIKE, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       shared_expert_intermediate_size=32, decoder_sparse_step=1), "causal_lm"),
    "mamba": ("MambaConfig", "MambaForCausalLM", dict(SPECIAL, hidden_size=32, state_size=8, num_hidden_layers=2,
                                                      expand=2, conv_kernel=4), "causal_lm"),
    "bert": ("BertConfig", "BertForSequenceClassification", BERT_LIKE, "classifier"),
    "roberta": ("RobertaConfig", "RobertaForSequenceClassification", dict(BERT_LIKE, pad_token_id=1), "classifier"),
    "deberta_v2": ("DebertaV2Config", "DebertaV2ForSequenceClassification",
                   dict(BERT_LIKE, relative_attention=True, pos_att_type=["p2c", "c2p"], position_buckets=8),
                   "classifier"),
    "distilbert": ("DistilBertConfig", "DistilBertForSequenceClassification",
                   dict(SPECIAL, dim=32, hidden_dim=64, n_layers=2, n_heads=4, max_position_embeddings=64,
                        num_labels=3), "classifier"),
    "albert": ("AlbertConfig", "AlbertForSequenceClassification", dict(BERT_LIKE, embedding_size=16), "classifier"),
    "electra": ("ElectraConfig", "ElectraForSequenceClassification", dict(BERT_LIKE, embedding_size=16),
                "classifier"),
    "t5": ("T5Config", "T5ForConditionalGeneration",
           dict(SPECIAL, d_model=32, d_ff=64, d_kv=8, num_layers=2, num_decoder_layers=2, num_heads=4,
                relative_attention_num_buckets=8, decoder_start_token_id=0), "seq2seq"),
    "bart": ("BartConfig", "BartForConditionalGeneration",
             dict(SEQ2SEQ, max_position_embeddings=64, decoder_start_token_id=2), "seq2seq"),
    "whisper": ("WhisperConfig", "WhisperForConditionalGeneration",
                dict(SEQ2SEQ, num_mel_bins=16, max_source_positions=16, max_target_positions=32,
                     decoder_start_token_id=1), "whisper"),
    "wav2vec2": ("Wav2Vec2Config", "Wav2Vec2ForCTC",
                 dict(vocab_size=32, pad_token_id=0, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                      num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2, ctc_loss_reduction="mean"),
                 "ctc"),
    "vit": ("ViTConfig", "ViTForImageClassification", dict(VISION, patch_size=8, num_labels=3), "image_classifier"),
    "convnext": ("ConvNextConfig", "ConvNextForImageClassification",
                 dict(num_channels=3, hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1], num_labels=3),
                 "image_classifier"),
    "swin": ("SwinConfig", "SwinForImageClassification",
             dict(image_size=IMAGE, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=4,
                  num_labels=3), "image_classifier"),
    "clip": ("CLIPConfig", "CLIPModel",
             dict(projection_dim=16, text_config=dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
                                                      num_hidden_layers=2, num_attention_heads=4,
                                                      max_position_embeddings=16),
                  vision_config=dict(VISION, patch_size=8)), "contrastive"),
    "siglip": ("SiglipConfig", "SiglipModel",
               dict(text_config=dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, max_position_embeddings=16),
                    vision_config=dict(VISION, patch_size=8)), "contrastive"),
}


def without_randomness(config) -> None:
    """Sets every dropout-like probability of a config (and of its sub-configs) to 0."""
    for name, value in list(vars(config).items()):
        if isinstance(value, float) and value > 0 and any(word in name for word in RANDOM_CONFIG):
            setattr(config, name, 0.0)
        elif hasattr(value, "to_dict") and hasattr(value, "model_type"):  # a sub-config (CLIP's text_config)
            without_randomness(value)


def _builder(config_class: str, model_class: str, arguments: dict):
    def build():
        transformers = import_package("transformers", "transformers")
        config = getattr(transformers, config_class)(**arguments)
        without_randomness(config)
        return getattr(transformers, model_class)(config)
    return build


def _tokens(generator, batch=BATCH, seq=SEQ, low=3, high=VOCAB):
    return torch.randint(low, high, (batch, seq), generator=generator)


def _batch(kind: str):
    def make(generator):
        if kind == "causal_lm":
            ids = _tokens(generator)
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids}
        if kind == "classifier":
            ids = _tokens(generator)
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids),
                    "labels": torch.randint(0, 3, (BATCH,), generator=generator)}
        if kind == "seq2seq":
            ids = _tokens(generator)
            return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": _tokens(generator, seq=5)}
        if kind == "whisper":  # 16 mel bins, 2 x max_source_positions frames
            return {"input_features": torch.randn(BATCH, 16, 32, generator=generator),
                    "labels": _tokens(generator, seq=5)}
        if kind == "ctc":  # raw audio; 800 samples make 79 frames
            return {"input_values": torch.randn(BATCH, 800, generator=generator),
                    "labels": _tokens(generator, seq=5, low=1, high=32)}
        if kind == "image_classifier":
            return {"pixel_values": torch.randn(BATCH, 3, IMAGE, IMAGE, generator=generator),
                    "labels": torch.randint(0, 3, (BATCH,), generator=generator)}
        ids = _tokens(generator)  # contrastive: text and image pairs
        return {"input_ids": ids, "pixel_values": torch.randn(BATCH, 3, IMAGE, IMAGE, generator=generator),
                "return_loss": True}
    return make


def _loss(model, batch):
    return model(**batch).loss


def _generate(model, batch):
    return model.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], max_new_tokens=4,
                          min_new_tokens=4, do_sample=False, pad_token_id=0)


def models() -> List[ZooModel]:
    transformers = import_package("transformers", "transformers")
    transformers.logging.set_verbosity_error()
    found = []
    for name, (config_class, model_class, arguments, kind) in MODELS.items():
        generative = kind in ("causal_lm", "seq2seq")
        found.append(ZooModel(name, "transformers", _builder(config_class, model_class, arguments), _batch(kind), _loss,
                              f"{model_class}, tiny config", _generate if generative else None,
                              ("config dropout 0",)))
    return found
