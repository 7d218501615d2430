//! The values a node's moves take, and their mex: what the misère numbers and the genus's
//! own recursion (both in this folder) take the least missing value of.

/// The values a node's moves take, for their mex: a bit mask below 64, a list above.
#[derive(Default)]
pub struct Marks {
    low: u64,
    high: Vec<u32>,
}

impl Marks {
    /// Marks `x` as taken.
    pub fn mark(&mut self, x: u32) {
        if x < 64 {
            self.low |= 1 << x;
        } else {
            self.high.push(x);
        }
    }

    /// The least value not marked.
    pub fn mex(mut self) -> u32 {
        let low = (!self.low).trailing_zeros();
        if low < 64 {
            return low;
        }
        self.high.sort_unstable();
        self.high.dedup();
        let mut x = 64;
        for &h in &self.high {
            if h != x {
                break;
            }
            x += 1;
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mex by its definition: the least value not in the list.
    fn mex_by_search(xs: &[u32]) -> u32 {
        (0..).find(|x| !xs.contains(x)).unwrap_or(u32::MAX)
    }

    #[test]
    fn the_mex_is_the_least_value_not_marked_below_64_and_above() {
        let mut lists: Vec<Vec<u32>> = vec![vec![], vec![0], vec![1, 2], vec![0, 0, 2, 1, 5]];
        lists.push((0..64).collect());
        lists.push((0..64).chain([64, 64, 66, 65, 68]).collect());
        lists.push((0..64).chain([70, 65]).collect());
        lists.push((0..200).rev().filter(|&x| x != 130).collect());
        for xs in lists {
            let mut marks = Marks::default();
            xs.iter().for_each(|&x| marks.mark(x));
            assert_eq!(marks.mex(), mex_by_search(&xs), "{xs:?}");
        }
    }
}
