"""zl's sample corpus: a small FlagGems-shaped benchmark suite that runs on the host."""
