"""Graph capture and replay on hal (issue 43), on the host reference device: torch.hal.HALGraph and the
torch.hal.graph context manager (torch.cuda's shape), torch.accelerator.Graph (PyTorch 2.12+), replays equal to
eager steps bit for bit (an MLP training step with dropout, an AdamW step, a decoder step over a static KV cache),
memory that stays flat, and a clear error for what a replay cannot repeat, after which the device works on."""
import pytest
import torch
import torch.nn.functional as F

import torch_hal  # noqa: F401

D = "hal:0"


def make_mlp(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Dropout(0.25),
                               torch.nn.Linear(32, 2)).to(D)


def train_step(model, optimizer, x, target):
    optimizer.zero_grad(set_to_none=False)
    loss = F.mse_loss(model(x), target)
    loss.backward()
    optimizer.step()
    return loss


def test_replay_runs_the_captured_work_and_capture_runs_none():
    x = torch.ones(4, device=D)
    g = torch.hal.HALGraph()
    with torch.hal.graph(g):
        y = x * 2 + 1
        x.add_(1)
    assert torch.equal(x.cpu(), torch.ones(4))  # capturing ran nothing, as a CUDA graph capture
    g.replay()
    assert torch.equal(y.cpu(), torch.full((4,), 3.0)) and torch.equal(x.cpu(), torch.full((4,), 2.0))
    g.replay()
    assert torch.equal(y.cpu(), torch.full((4,), 5.0)) and torch.equal(x.cpu(), torch.full((4,), 3.0))


@pytest.mark.parametrize("optimizer", ["sgd_momentum", "adamw_capturable"])
def test_training_step_replays_equal_eager_steps_bit_for_bit(optimizer):
    """Forward, backward (dropout's masks drawn at each replay from the seeded generator) and the optimizer's
    step: four replays with new data give the parameters and losses of four eager steps after the same seed."""
    model, twin = make_mlp(0), make_mlp(0)
    make = {"sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
            "adamw_capturable": lambda p: torch.optim.AdamW(p, lr=1e-2, capturable=True)}[optimizer]
    opt, twin_opt = make(model.parameters()), make(twin.parameters())
    g = torch.Generator().manual_seed(1)
    xs, targets = torch.randn(5, 16, 8, generator=g).to(D), torch.randn(5, 16, 2, generator=g).to(D)
    for m, o in ((model, opt), (twin, twin_opt)):  # the warm-up step that creates grads and optimizer state
        torch.manual_seed(7)
        train_step(m, o, xs[0], targets[0])
    static_x, static_target = torch.zeros(16, 8, device=D), torch.zeros(16, 2, device=D)
    graph = torch.hal.HALGraph()
    with torch.hal.graph(graph):
        static_loss = train_step(model, opt, static_x, static_target)
    torch.manual_seed(11)
    replayed = []
    for i in range(1, 5):
        static_x.copy_(xs[i])
        static_target.copy_(targets[i])
        graph.replay()
        replayed.append(static_loss.item())
    torch.manual_seed(11)
    eager = [train_step(twin, twin_opt, xs[i], targets[i]).item() for i in range(1, 5)]
    assert replayed == eager
    for p, q in zip(model.parameters(), twin.parameters()):
        assert torch.equal(p.cpu(), q.cpu())


def test_dropout_differs_per_replay_and_matches_eager_for_the_seed():
    x = torch.ones(256, device=D)
    g = torch.hal.HALGraph()
    with torch.hal.graph(g):
        y = F.dropout(x, 0.5)
    torch.manual_seed(3)
    masks = []
    for _ in range(3):
        g.replay()
        masks.append(y.cpu().clone())
    torch.manual_seed(3)
    eager = [F.dropout(x, 0.5).cpu() for _ in range(3)]
    assert all(torch.equal(a, b) for a, b in zip(masks, eager))
    assert not torch.equal(masks[0], masks[1])


class DecoderLayer(torch.nn.Module):
    """One attention layer decoding a token at a time into a preallocated KV cache (a static cache, as
    transformers' StaticCache): the position is a tensor, so every step runs the same ops."""

    def __init__(self, dim=16, heads=2, max_len=8):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv, self.out = torch.nn.Linear(dim, 3 * dim), torch.nn.Linear(dim, dim)
        self.register_buffer("k_cache", torch.zeros(1, heads, max_len, dim // heads))
        self.register_buffer("v_cache", torch.zeros(1, heads, max_len, dim // heads))
        self.register_buffer("slots", torch.arange(max_len))

    def forward(self, token, position):
        q, k, v = self.qkv(token).view(1, 1, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        self.k_cache.index_copy_(2, position, k)
        self.v_cache.index_copy_(2, position, v)
        visible = (self.slots <= position).view(1, 1, 1, -1)
        attended = F.scaled_dot_product_attention(q, self.k_cache, self.v_cache, attn_mask=visible)
        return self.out(attended.transpose(1, 2).reshape(1, 1, -1))


def test_decoder_step_over_a_static_kv_cache_replays_equal_eager():
    torch.manual_seed(0)
    layer = DecoderLayer().to(D)
    twin = DecoderLayer().to(D)
    twin.load_state_dict(layer.state_dict())
    tokens = torch.randn(6, 1, 1, 16).to(D)
    static_token, static_position = torch.zeros(1, 1, 16, device=D), torch.zeros(1, dtype=torch.long, device=D)
    g = torch.hal.HALGraph()
    with torch.no_grad(), torch.hal.graph(g):
        static_out = layer(static_token, static_position)
    with torch.no_grad():
        for step in range(6):
            static_token.copy_(tokens[step])
            static_position.fill_(step)
            g.replay()
            want = twin(tokens[step], torch.tensor([step], device=D))
            assert torch.equal(static_out.cpu(), want.cpu()), step
    assert torch.equal(layer.k_cache.cpu(), twin.k_cache.cpu())


def test_memory_stays_flat_across_1000_replays():
    model = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.GELU(), torch.nn.Linear(32, 32)).to(D)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = torch.randn(8, 32, device=D)
    train_step(model, opt, x, torch.zeros(8, 32, device=D))
    g = torch.hal.HALGraph()
    with torch.hal.graph(g):
        train_step(model, opt, x, torch.zeros(8, 32, device=D))
    g.replay()
    before = torch.hal.memory_allocated()
    for _ in range(1000):
        g.replay()
    assert torch.hal.memory_allocated() == before


UNCAPTURABLE = {
    "item": (lambda x: (x * 2).sum().item(), "reads a tensor's value on the host"),
    "synchronize": (lambda x: torch.hal.synchronize(), r"torch.hal.synchronize\(\)"),
    "nonzero": (lambda x: torch.nonzero(x), "depends on the data"),
    "copy to the CPU": (lambda x: (x + 1).cpu(), "copies a hal tensor to the host"),
    "boolean mask": (lambda x: x[x > 0], "nonzero"),
}


@pytest.mark.parametrize("name", sorted(UNCAPTURABLE))
def test_what_a_replay_cannot_repeat_raises_and_the_device_works_on(name):
    fn, message = UNCAPTURABLE[name]
    x = torch.ones(4, device=D)
    g = torch.hal.HALGraph()
    with pytest.raises(torch.hal.GraphCaptureError, match=message):
        with torch.hal.graph(g):
            fn(x)
    assert not torch.hal.is_current_stream_capturing()
    assert (x + 1).sum().item() == 8.0  # ops run at once again
    with torch.hal.graph(g):  # and the same graph captures again
        x.mul_(3)
    g.replay()
    assert torch.equal(x.cpu(), torch.full((4,), 3.0))


def test_misuse_raises_clear_errors():
    g = torch.hal.HALGraph()
    with pytest.raises(torch.hal.GraphCaptureError, match="before a capture ended"):
        g.replay()
    x = torch.zeros(2, device=D)
    g.capture_begin()
    assert torch.hal.is_current_stream_capturing()
    with pytest.raises(torch.hal.GraphCaptureError, match="already being captured"):
        torch.hal.HALGraph().capture_begin()
    x.add_(1)
    g.capture_end()
    with pytest.raises(torch.hal.GraphCaptureError, match="reset"):
        g.capture_begin()
    g.reset()
    with pytest.raises(ValueError, match="capture_error_mode"):
        g.capture_begin(capture_error_mode="lenient")
    pool = torch.hal.graph_pool_handle()
    g.capture_begin(pool=pool)
    g.capture_end()
    assert g.pool() == pool


@pytest.mark.skipif(not hasattr(torch.accelerator, "Graph"), reason="torch.accelerator.Graph is PyTorch 2.12+")
def test_torch_accelerator_graph_captures_and_replays_on_hal():
    x = torch.zeros(3, device=D)
    g = torch.accelerator.Graph()
    with g:  # synchronizes, empties the device and host caches, then captures
        x += 1
    assert torch.equal(x.cpu(), torch.zeros(3))
    g.replay()
    g.replay()
    assert torch.equal(x.cpu(), torch.full((3,), 2.0))
    assert isinstance(g.pool(), tuple)


def test_make_graphed_callables_trains_a_module_as_eager_does():
    """torch.hal.make_graphed_callables, as torch.cuda's: the module's forward and backward replay captured graphs
    inside an autograd Function, the loss and the optimizer stay eager; three steps end with the eager twin's
    parameters, and the module's own forward runs in the other training mode."""
    def make():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4)).to(D)

    model, twin = make(), make()
    graphed = torch.hal.make_graphed_callables(model, (torch.randn(12, 8, device=D),))
    opt, twin_opt = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(twin.parameters(), lr=0.1)
    g = torch.Generator().manual_seed(2)
    for _ in range(3):
        x, target = torch.randn(12, 8, generator=g).to(D), torch.randn(12, 4, generator=g).to(D)
        for m, o in ((graphed, opt), (twin, twin_opt)):
            o.zero_grad()
            F.mse_loss(m(x), target).backward()
            o.step()
    for p, q in zip(model.parameters(), twin.parameters()):
        assert torch.equal(p.cpu(), q.cpu())
    graphed.eval()
    x = torch.randn(3, 8, device=D)  # another batch size: only the module's own forward can take it
    assert torch.equal(graphed(x).cpu(), twin.eval()(x).cpu())


def test_make_graphed_callables_gives_input_gradients_of_a_function():
    weight = torch.randn(5, device=D)

    def f(a):
        return (a * weight).sin()

    graphed = torch.hal.make_graphed_callables(f, (torch.randn(5, device=D, requires_grad=True),))
    a = torch.randn(5, device=D, requires_grad=True)
    graphed(a).sum().backward()
    b = a.detach().clone().requires_grad_()
    f(b).sum().backward()
    assert torch.equal(a.grad.cpu(), b.grad.cpu())
