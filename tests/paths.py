"""Where the tests find the checkout and their data, wherever a test module lives under tests/."""

import os

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT_DIR = os.path.dirname(TESTS_DIR)
