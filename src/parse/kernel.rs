//! The tokenizing kernel: the bytes of a piece (starting and ending at token boundaries)
//! turned into `u32` tokens, 64 bytes at a time with SSE2 or AVX2 where the processor has it,
//! each vector path tested against the bytewise twin. The parallel reader (`tokens`)
//! and a cluster worker's share both call it.

use crate::parse::lexer::{digit_word, digits_value, is_space, scan_number, Scanned};

/// Appends the tokens of `bytes` (which starts and ends at token boundaries) to `out`; on a bad
/// token (not all digits, or above `u32::MAX`) stops and returns its offset.
///
/// 64 bytes at a time: one pass classifies the block into bit masks of digits and whitespace,
/// so a token's start and end are two bit scans and its digits one eight-byte load, with no
/// branch per byte nor per token length; the block's tokens are then converted together, four
/// at a time where the processor has AVX2 (else one at a time, the twin it must agree with). A
/// block holding any other byte or a token of more than eight digits, and the last bytes, go to
/// [`tokenize_bytewise`], the twin of both.
pub(crate) fn tokenize_piece(bytes: &[u8], out: &mut Vec<u32>) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above), the one condition of calling a
        // function compiled for it.
        return unsafe { tokenize_avx2(bytes, out) };
    }
    tokenize_blocks(bytes, out, classify, convert_words)
}

/// [`tokenize_blocks`] compiled for AVX2, converting four tokens at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn tokenize_avx2(bytes: &[u8], out: &mut Vec<u32>) -> Option<usize> {
    tokenize_blocks(
        bytes,
        out,
        |block| classify_avx2(block),
        |words, count, values| convert_words_avx2(words, count, values),
    )
}

/// Most tokens that end in a block: each takes a digit and a whitespace byte.
const BLOCK_TOKENS: usize = BLOCK / 2;

/// [`tokenize_piece`] with `classify(block)` giving the masks of a block's digits and
/// whitespace ([`classify`]) and `convert(words, count, values)` turning the first `count`
/// [`digit_word`]s of a block into their values.
#[inline(always)]
fn tokenize_blocks(
    bytes: &[u8],
    out: &mut Vec<u32>,
    classify: impl Fn(&[u8; BLOCK]) -> (u64, u64),
    convert: impl Fn(&[u64; BLOCK_TOKENS], usize, &mut [u32; BLOCK_TOKENS]),
) -> Option<usize> {
    out.reserve(bytes.len() / 2 + BLOCK);
    let mut pos = 0;
    // A token starting at bit 63 is read with one load of 8 bytes: the block needs 71.
    while pos + BLOCK + 8 <= bytes.len() {
        // Fixed sizes, so that no read below needs a bounds check: a token starts at bit 63
        // at most, and its 8 bytes end within the window.
        let window: &[u8; BLOCK + 8] =
            bytes[pos..pos + BLOCK + 8].try_into().expect("a whole window");
        let block: &[u8; BLOCK] = window[..BLOCK].try_into().expect("a whole block");
        let (digits, spaces) = classify(block);
        if digits | spaces != u64::MAX {
            break;
        }
        // Bit i of `starts`: byte i starts a token (byte pos - 1 is whitespace or outside);
        // of `ends`: byte i ends one inside the block (a digit at bit 63 may go on).
        let mut starts = digits & !(digits << 1);
        let mut ends = digits & !(digits >> 1) & (u64::MAX >> 1);
        let mut words = [0u64; BLOCK_TOKENS];
        let (mut count, mut long) = (0, false);
        while ends != 0 {
            let (s, e) = (starts.trailing_zeros() as usize, ends.trailing_zeros() as usize);
            let len = e - s + 1;
            long |= len > 8;
            let word = u64::from_le_bytes(window[s..s + 8].try_into().expect("eight bytes"));
            // The modulo never wraps (at most BLOCK_TOKENS tokens): it spares a bounds check.
            words[count % BLOCK_TOKENS] = digit_word(word, len.min(8));
            count += 1;
            starts &= starts - 1;
            ends &= ends - 1;
        }
        if long {
            // Rare: the bytewise twin reads the block again (it skips the whitespace itself),
            // up to the token that crosses its end.
            let end = pos + if starts == 0 { BLOCK } else { starts.trailing_zeros() as usize };
            if let Some(at) = tokenize_bytewise(&bytes[pos..end], out) {
                return Some(pos + at);
            }
        } else {
            let mut values = [0u32; BLOCK_TOKENS];
            convert(&words, count, &mut values);
            // The whole array, then cut: a copy of fixed size is a few vector moves, where one
            // of `count` values would be a call.
            let kept = out.len() + count;
            out.extend_from_slice(&values);
            out.truncate(kept);
        }
        pos += match starts {
            0 => BLOCK,
            // A token longer than the block: read it alone, then go on from its end.
            1 => match scan_number(bytes, pos) {
                Scanned::Number(value, end) => {
                    out.push(value);
                    end - pos
                }
                _ => return Some(pos),
            },
            // The token crossing the block's end starts the next block.
            _ => starts.trailing_zeros() as usize,
        };
    }
    tokenize_bytewise(&bytes[pos..], out).map(|at| pos + at)
}

/// The values of the first `count` digit words of `words`, one at a time.
#[inline(always)]
fn convert_words(words: &[u64; BLOCK_TOKENS], count: usize, values: &mut [u32; BLOCK_TOKENS]) {
    for (value, &word) in values.iter_mut().zip(words).take(count) {
        *value = digits_value(word);
    }
}

/// The values of the first `count` digit words of `words` (and of a few more), four at a
/// time: digits paired (x10), pairs paired (x100), then the halves (x10000), as in
/// [`digits_value`], by vector multiply-adds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn convert_words_avx2(words: &[u64; BLOCK_TOKENS], count: usize, values: &mut [u32; BLOCK_TOKENS]) {
    use std::arch::x86_64::*;
    for (four, out) in words.chunks_exact(4).zip(values.chunks_exact_mut(4)).take(count.div_ceil(4))
    {
        // SAFETY: AVX2 is enabled for this function; the load reads the 32 bytes of `four`
        // and the store writes the 16 bytes of `out`, both of any alignment.
        unsafe {
            let v = _mm256_loadu_si256(four.as_ptr().cast());
            // Bytes [d0 d1 ..] (unsigned) times [10 1 ..] (signed), pairs added: 16-bit lanes.
            let v = _mm256_maddubs_epi16(v, _mm256_set1_epi16(0x010a));
            let v = _mm256_madd_epi16(v, _mm256_set1_epi32(0x0001_0064));
            // Each half of each word (at most 9999) as 16 bits, then high x 10000 + low.
            let v = _mm256_packus_epi32(v, v);
            let v = _mm256_madd_epi16(v, _mm256_set1_epi32(0x0001_2710));
            // Lanes [a b a b | c d c d]: the four values are lanes 0, 1, 4 and 5.
            let v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 1, 4, 5, 0, 1, 4, 5));
            _mm_storeu_si128(out.as_mut_ptr().cast(), _mm256_castsi256_si128(v));
        }
    }
}

/// Bytes classified at a time by [`tokenize_piece`].
const BLOCK: usize = 64;

/// Bit masks of the ASCII digits and of the whitespace bytes of `block` (bit i for byte i):
/// 16 bytes per vector compare on x86-64 (SSE2, which every such processor has).
#[cfg(target_arch = "x86_64")]
#[inline]
fn classify(block: &[u8; BLOCK]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let mut digits = 0u64;
    let mut spaces = 0u64;
    for (k, lane) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of x86-64, so every instruction here exists; the one memory
        // access, `loadu`, reads the 16 bytes of `lane`, and accepts any alignment.
        let (d, s) = unsafe {
            let x = _mm_loadu_si128(lane.as_ptr().cast());
            // b - '0' <= 9 and b - '\t' <= 4 (tab to carriage return) as unsigned bytes: a
            // value is at most a bound exactly when it equals its minimum with the bound.
            let d = _mm_sub_epi8(x, _mm_set1_epi8(b'0' as i8));
            let d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
            let c = _mm_sub_epi8(x, _mm_set1_epi8(b'\t' as i8));
            let c = _mm_cmpeq_epi8(_mm_min_epu8(c, _mm_set1_epi8(4)), c);
            let s = _mm_or_si128(c, _mm_cmpeq_epi8(x, _mm_set1_epi8(b' ' as i8)));
            (_mm_movemask_epi8(d), _mm_movemask_epi8(s))
        };
        digits |= u64::from(d as u16) << (16 * k);
        spaces |= u64::from(s as u16) << (16 * k);
    }
    (digits, spaces)
}

/// [`classify`] 32 bytes per vector compare, for processors with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn classify_avx2(block: &[u8; BLOCK]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let mut digits = 0u64;
    let mut spaces = 0u64;
    for (k, lane) in block.chunks_exact(32).enumerate() {
        // SAFETY: AVX2 is enabled for this function; the one memory access, `loadu`, reads
        // the 32 bytes of `lane`, and accepts any alignment.
        let (d, s) = unsafe {
            let x = _mm256_loadu_si256(lane.as_ptr().cast());
            // As in `classify`: b - '0' <= 9, b - '\t' <= 4 or b == ' ', as unsigned bytes.
            let d = _mm256_sub_epi8(x, _mm256_set1_epi8(b'0' as i8));
            let d = _mm256_cmpeq_epi8(_mm256_min_epu8(d, _mm256_set1_epi8(9)), d);
            let c = _mm256_sub_epi8(x, _mm256_set1_epi8(b'\t' as i8));
            let c = _mm256_cmpeq_epi8(_mm256_min_epu8(c, _mm256_set1_epi8(4)), c);
            let s = _mm256_or_si256(c, _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b' ' as i8)));
            (_mm256_movemask_epi8(d), _mm256_movemask_epi8(s))
        };
        digits |= u64::from(d as u32) << (32 * k);
        spaces |= u64::from(s as u32) << (32 * k);
    }
    (digits, spaces)
}

/// Bit masks of the ASCII digits and of the whitespace bytes of `block` (bit i for byte i).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn classify(block: &[u8; BLOCK]) -> (u64, u64) {
    let mut digits = 0u64;
    let mut spaces = 0u64;
    for (i, &b) in block.iter().enumerate() {
        digits |= u64::from(b.wrapping_sub(b'0') < 10) << i;
        spaces |= u64::from(is_space(b)) << i;
    }
    (digits, spaces)
}

/// The byte-by-byte twin of [`tokenize_piece`], which it falls back to: whitespace skipped a
/// byte at a time, each token read by [`scan_number`].
pub(crate) fn tokenize_bytewise(bytes: &[u8], out: &mut Vec<u32>) -> Option<usize> {
    let mut i = 0;
    loop {
        while i < bytes.len() && is_space(bytes[i]) {
            i += 1;
        }
        if i == bytes.len() {
            return None;
        }
        match scan_number(bytes, i) {
            Scanned::Number(value, end) => {
                out.push(value);
                i = end;
            }
            Scanned::NotANumber | Scanned::TooLarge | Scanned::TooLong => return Some(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random texts of tokens 1 to 80 bytes long (leading zeros, values past `u32::MAX`) and
    /// whitespace runs of every kind, sometimes with a bad byte (next to the digits' and the
    /// whitespace's ranges among them): the block tokenizer, with either classification and
    /// conversion, must give the byte-wise twin's tokens and error offset, wherever
    /// tokens cross block edges.
    #[test]
    fn block_tokenizer_agrees_with_the_bytewise_twin() {
        let mut rng = crate::testing::Xorshift::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |bound: u64| rng.below(bound);
        let mut runs_with_errors = 0;
        for _ in 0..3_000 {
            let mut text = Vec::new();
            let target = 1 + next(700) as usize;
            // Half the texts have few long tokens, so that most blocks are converted whole.
            let long_odds = if next(2) == 0 { 10 } else { 1000 };
            while text.len() < target {
                let len = if next(long_odds) == 0 {
                    9 + next(72) as usize
                } else if next(9) == 0 {
                    8
                } else {
                    1 + next(7) as usize
                };
                let digits = if next(6) == 0 { b"0000000009" } else { b"0123456789" };
                text.extend((0..len).map(|_| digits[next(10) as usize]));
                let longest = if next(4) == 0 { 70 } else { 2 };
                let gap = 1 + next(longest) as usize;
                text.extend((0..gap).map(|_| b" \t\n\r\x0b\x0c"[next(6) as usize]));
            }
            if next(5) == 0 {
                let at = next(text.len() as u64) as usize;
                let bad = [b'x', b'-', 0, 0xff, b'/', b':', b'+', 8, 0x0e, 0x1f, b'!', 0x80];
                text[at] = bad[next(bad.len() as u64) as usize];
            }
            let (mut block, mut scalar, mut bytewise) = (Vec::new(), Vec::new(), Vec::new());
            let (a, b) =
                (tokenize_piece(&text, &mut block), tokenize_bytewise(&text, &mut bytewise));
            runs_with_errors += usize::from(b.is_some());
            assert_eq!((a, &block), (b, &bytewise), "{:?}", String::from_utf8_lossy(&text));
            // The one-at-a-time conversion, which processors without AVX2 take.
            let c = tokenize_blocks(&text, &mut scalar, classify, convert_words);
            assert_eq!((c, &scalar), (b, &bytewise), "{:?}", String::from_utf8_lossy(&text));
        }
        assert!(runs_with_errors > 300, "{runs_with_errors}");
    }
}
