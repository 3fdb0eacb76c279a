"""PyTorch reference for the bench's training step (npm run bench -- --only train --torch).

The policy of agent/model.ts written in PyTorch: learned token and position embeddings,
pre-LayerNorm blocks (x += attn(ln1(x)); x += mlp(ln2(x))) with causal multi-head attention and
a ReLU MLP, a final LayerNorm and an untied head with a bias. One step is what the bench times on
our side: forward on a [rows, length] batch of token ids, the mean negative log-probability of
every next token, backward, global-norm clip to 1, Adam (lr 1e-4).

Started by bench/train.ts with the model config as JSON; prints one JSON line about itself
(torch version, threads, parameter count), then for every line `step` on stdin times one step and
prints {"ms": ...}; `quit` (or the end of stdin) ends it. So the bench alternates our step and
this one in one run.
"""

import json
import math
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print(json.dumps({"error": "no module named torch"}), flush=True)
    sys.exit(1)


class Block(nn.Module):
    def __init__(self, d, heads, f):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.fc1 = nn.Linear(d, f)
        self.fc2 = nn.Linear(f, d)

    def forward(self, x, mask):
        b, t, d = x.shape
        hs = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, hs).transpose(1, 2)
        k = k.view(b, t, self.heads, hs).transpose(1, 2)
        v = v.view(b, t, self.heads, hs).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
        att = F.softmax(att.masked_fill(mask[:t, :t] == 0, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(F.relu(self.fc1(self.ln2(x))))


class Policy(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        v, ctx, d = cfg["vocabSize"], cfg["contextLength"], cfg["dModel"]
        self.wte = nn.Embedding(v, d)
        self.wpe = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, cfg["nHeads"], cfg["dFF"]) for _ in range(cfg["nLayers"]))
        self.lnf = nn.LayerNorm(d, eps=1e-5)
        self.head = nn.Linear(d, v)
        self.register_buffer("mask", torch.tril(torch.ones(ctx, ctx)))

    def forward(self, ids):
        t = ids.shape[1]
        x = self.wte(ids) + self.wpe(torch.arange(t))
        for block in self.blocks:
            x = block(x, self.mask)
        return self.head(self.lnf(x))


def main():
    cfg = json.loads(sys.argv[1])
    rows, length, threads = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = Policy(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    ids = torch.randint(0, cfg["vocabSize"], (rows, length))
    inputs, targets = ids[:, :-1], ids[:, 1:]

    def step():
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, cfg["vocabSize"]), targets.reshape(-1))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        return loss.item()

    parameters = sum(p.numel() for p in model.parameters())
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "parameters": parameters}), flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == "quit":
            break
        if command == "step":
            started = time.perf_counter()
            step()
            print(json.dumps({"ms": (time.perf_counter() - started) * 1000}), flush=True)


if __name__ == "__main__":
    main()
