"""``python -m legco_assets.cli``: the ``legco-assets`` program."""

from .main import run

if __name__ == "__main__":
    run()
