"""Reference implementations kept as test oracles.

Each module holds the plain implementation a product fast path replaced (issue 14), written for
clarity, not speed; the tests compare the product's one implementation with it. None of it is
imported by the product.
"""
