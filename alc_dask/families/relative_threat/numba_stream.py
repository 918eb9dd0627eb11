"""Numba's ``np.random`` stream, read faster: the same doubles and gamma variates, draw for draw.

The chains' Dirichlet draws take millions of gamma variates from Numba's per-thread Mersenne
Twister (MT19937, Matsumoto and Nishimura 1998). Numba tempers each 32-bit word and checks its
index on every call; here the kernels read the same state (``state_words``: the index, then the
624 words) but temper a whole block at once into ``doubles`` (312 doubles, made as NumPy's legacy
``random_sample`` makes them), and draw gamma variates by the method Numba uses (Cheng 1977 above
shape 1, an exponential at 1, Numba's own call below) with each shape's constants looked up, not
recomputed. Calls into Numba's generator (e.g. ``np.random.binomial``) may go in between: ``refill``
afterwards brings ``doubles`` up to date. The stream stays Numba's: seeding is ``np.random.seed``.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba.core import types
from numba.cpython.randomimpl import get_state_ptr
from numba.extending import intrinsic

WORDS = 624
SHIFT = 397
DOUBLES = WORDS // 2


@intrinsic
def _np_state_pointer(typingctx):
    """The address of this thread's ``np.random`` state of Numba: an int32 index, then the 624 words."""
    signature = types.CPointer(types.uint32)()

    def codegen(context, builder, signature, args):
        return builder.bitcast(get_state_ptr(context, builder, "np"), context.get_value_type(signature.return_type))

    return signature, codegen


@numba.njit(nogil=True, cache=True)
def state_words():
    """This thread's ``np.random`` state of Numba as uint32: ``[0]`` the index, ``[1:625]`` the words."""
    return numba.carray(_np_state_pointer(), (WORDS + 1,))


@numba.njit(nogil=True, cache=True, inline="always")
def _mixed(upper, lower, far):
    y = (upper & np.uint32(0x80000000)) | (lower & np.uint32(0x7FFFFFFF))
    return far ^ (y >> np.uint32(1)) ^ (np.uint32(0x9908B0DF) * (y & np.uint32(1)))


@numba.njit(nogil=True, cache=True)
def _twist(words):
    """The next 624 words of MT19937, in place (``words[1:625]``), as Numba's shuffle makes them."""
    mt = words[1:]
    for i in range(WORDS - SHIFT):
        mt[i] = _mixed(mt[i], mt[i + 1], mt[i + SHIFT])
    for i in range(WORDS - SHIFT, WORDS - 1):
        mt[i] = _mixed(mt[i], mt[i + 1], mt[i + SHIFT - WORDS])
    mt[WORDS - 1] = _mixed(mt[WORDS - 1], mt[0], mt[SHIFT - 1])


@numba.njit(nogil=True, cache=True, inline="always")
def _tempered(y):
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    return y ^ (y >> np.uint32(18))


@numba.njit(nogil=True, cache=True, inline="always")
def _double_of(first, second):
    """NumPy's legacy double of two words: 53 random bits over 2**53."""
    return (float(second >> np.uint32(6)) + float(first >> np.uint32(5)) * 67108864.0) / 9007199254740992.0


@numba.njit(nogil=True, cache=True)
def refill(words, doubles):
    """``doubles[i]``: the double of words ``2i`` and ``2i + 1`` of the current block."""
    for i in range(DOUBLES):
        doubles[i] = _double_of(_tempered(words[1 + 2 * i]), _tempered(words[2 + 2 * i]))


@numba.njit(nogil=True, cache=True, inline="always")
def next_double(words, doubles, index):
    """``np.random.random()`` of Numba, and the next index (uint32). The index is the caller's local,
    in a register (through memory it cost a fifth of a gamma variate); ``words[0] = index`` hands it
    back before Numba's generator is called again. It must be even (``even_index``)."""
    if index >= WORDS:
        _twist(words)
        refill(words, doubles)
        index = np.uint32(0)
    return doubles[index >> np.uint32(1)], index + np.uint32(2)


@numba.njit(nogil=True, cache=True)
def even_index(words):
    """Numba's index, checked even: every draw of these kernels and of Numba's ``random``, ``gamma``
    and ``binomial`` takes two words, and seeding sets 624, so an odd index means another draw ran."""
    if words[0] & np.uint32(1):
        raise ValueError("Numba's np.random index is odd: a draw of single words ran in between")
    return words[0]


SQUEEZE = 1.0 + math.log(4.5)
"""Cheng's constant (Numba's SG_MAGICCONST, from the same libm log): a constant, not a log per variate."""
SHAPE, ROOT, BASE, SLOPE = range(4)
"""The columns of a ``gamma_table`` (one row per shape)."""


@numba.njit(nogil=True, cache=True)
def gamma_table(shapes):
    """Per shape, the constants of Cheng's method (Numba's expressions, so the same bits): the
    shape, sqrt(2 shape - 1), shape - log 4, shape + sqrt(2 shape - 1)."""
    table = np.zeros((shapes.shape[0], 4))
    for i in range(shapes.shape[0]):
        shape = shapes[i]
        table[i, SHAPE] = shape
        if shape > 1.0:
            root = math.sqrt(2.0 * shape - 1.0)
            table[i, ROOT] = root
            table[i, BASE] = shape - math.log(4.0)
            table[i, SLOPE] = shape + root
    return table


@numba.njit(nogil=True, cache=True, inline="always")
def standard_gamma(table, i, words, doubles, index):
    """``np.random.gamma(table[i, SHAPE], 1.0)`` of Numba, value and stream alike (Cheng 1977, GB),
    and the next index (see ``next_double``)."""
    shape = table[i, SHAPE]
    if shape > 1.0:
        root, base, slope = table[i, ROOT], table[i, BASE], table[i, SLOPE]
        while True:
            u1, index = next_double(words, doubles, index)
            if not 1e-7 < u1 < 0.9999999:
                continue
            u2, index = next_double(words, doubles, index)
            u2 = 1.0 - u2
            v = math.log(u1 / (1.0 - u1)) / root
            x = shape * math.exp(v)
            z = u1 * u1 * u2
            r = base + slope * v - x
            if r + SQUEEZE - 4.5 * z >= 0.0 or r >= math.log(z):
                break
    elif shape == 1.0:
        u, index = next_double(words, doubles, index)
        x = -math.log(1.0 - u)
    else:
        x, index = _small_shape_gamma(shape, words, doubles, np.uint64(index))  # the index is uint32 or uint64 by caller: one type, one compilation
    return x, index


@numba.njit(nogil=True, cache=True)
def _small_shape_gamma(shape, words, doubles, index):
    """A shape below 1 (a prior under 1): Numba's own draw, the index handed over and back."""
    words[0] = index
    value = np.random.gamma(shape, 1.0)
    if words[0] < index:  # Numba drew a new block (one call takes far fewer than 624 words)
        refill(words, doubles)
    return value, even_index(words)
