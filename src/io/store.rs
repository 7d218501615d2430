//! Read-only arrays that are either a vector the engine built or a stretch of a memory-mapped
//! file (an index, [`crate::index`]): one type, so a graph or a value table read from an index
//! is the same graph every stage already takes, with nothing copied.
//!
//! [`Store<T>`] derefs to `&[T]` without a branch (a pointer and a length), so a hot loop
//! pays nothing for the choice; [`Ints`] is a column of unsigned integers in the narrowest
//! width that holds them, read as `u32`.

use std::fmt;
use std::mem::{align_of, size_of, ManuallyDrop};
use std::ptr::NonNull;
use std::sync::Arc;

/// The plain integer types a [`Store`] may hold.
///
/// # Safety
///
/// Implementors have no padding and no invalid bit pattern (every byte string of their size
/// is a value), are `Copy` and have no drop glue: any aligned bytes of a file can be read as
/// a slice of them.
pub unsafe trait Plain: Copy + Send + Sync + PartialEq + fmt::Debug + 'static {}

// SAFETY: unsigned integers: no padding, every bit pattern a value, no drop glue.
unsafe impl Plain for u8 {}
// SAFETY: as for u8.
unsafe impl Plain for u16 {}
// SAFETY: as for u8.
unsafe impl Plain for u32 {}
// SAFETY: as for u8.
unsafe impl Plain for u64 {}

/// Bytes that stay where they are for as long as anyone holds them: what a [`Store`] borrowed
/// from a file keeps alive (an [`crate::Input`]'s memory map or buffer).
pub trait Pinned: Send + Sync + 'static {
    /// The bytes. Every call returns the same address and length.
    fn pinned(&self) -> &[u8];
}

/// A read-only array of `T`: a vector's buffer, or bytes of a [`Pinned`] owner.
pub struct Store<T: Plain> {
    ptr: NonNull<T>,
    len: usize,
    keep: Keep,
}

enum Keep {
    /// The buffer of a vector taken apart by [`Store::from`], with its capacity: rebuilt and
    /// dropped by `Drop`.
    Vec { capacity: usize },
    /// Bytes of an owner that outlives every `Store` holding it.
    Pinned(Arc<dyn Pinned>),
}

// SAFETY: a Store is, to other threads, either a `Vec<T>` it owns alone or a shared `&[T]`
// into an owner that is itself Send + Sync; `T: Plain` is Send + Sync. Nothing is ever
// written through `ptr`.
unsafe impl<T: Plain> Send for Store<T> {}
// SAFETY: as for Send: only shared reads go through `&Store`.
unsafe impl<T: Plain> Sync for Store<T> {}

impl<T: Plain> Store<T> {
    /// `len` values of `T` at byte `offset` of `owner`, read in place; `None` when they are
    /// not inside its bytes or not aligned for `T` (a caller may then copy them,
    /// [`Store::copied`]).
    pub fn pinned(owner: &Arc<dyn Pinned>, offset: usize, len: usize) -> Option<Store<T>> {
        let bytes = owner.pinned();
        let size = len.checked_mul(size_of::<T>())?;
        let stretch = bytes.get(offset..offset.checked_add(size)?)?;
        let ptr = stretch.as_ptr();
        if ptr as usize % align_of::<T>() != 0 {
            return None;
        }
        let ptr = NonNull::new(ptr as *mut T)?;
        Some(Store { ptr, len, keep: Keep::Pinned(Arc::clone(owner)) })
    }

    /// `len` values of `T` read from byte `offset` of `bytes` into a vector of their own
    /// (little-endian); `None` when they are not inside `bytes`.
    pub fn copied(bytes: &[u8], offset: usize, len: usize) -> Option<Store<T>> {
        let size = len.checked_mul(size_of::<T>())?;
        let stretch = bytes.get(offset..offset.checked_add(size)?)?;
        let mut values = Vec::with_capacity(len);
        for chunk in stretch.chunks_exact(size_of::<T>()) {
            // SAFETY: `chunk` holds exactly size_of::<T>() bytes and every bit pattern is a
            // `T` (`Plain`); read_unaligned takes any alignment.
            values.push(unsafe { chunk.as_ptr().cast::<T>().read_unaligned() });
        }
        Some(Store::from(values))
    }

    /// The values as a vector: the vector itself when this store holds one, else a copy.
    pub fn into_vec(self) -> Vec<T> {
        let this = ManuallyDrop::new(self);
        match &this.keep {
            // SAFETY: ptr, len and capacity are the parts `Store::from` took from a vector,
            // untouched since; `this` is never dropped, so the buffer has one owner again.
            Keep::Vec { capacity } => unsafe {
                Vec::from_raw_parts(this.ptr.as_ptr(), this.len, *capacity)
            },
            Keep::Pinned(owner) => {
                let values = this.to_vec();
                // SAFETY: `this` is never used again; its owner handle is dropped once.
                drop(unsafe { std::ptr::read(owner) });
                values
            }
        }
    }

    /// True when the values are read in place from a file's bytes.
    pub fn is_pinned(&self) -> bool {
        matches!(self.keep, Keep::Pinned(_))
    }
}

impl<T: Plain> From<Vec<T>> for Store<T> {
    fn from(values: Vec<T>) -> Store<T> {
        let mut values = ManuallyDrop::new(values);
        let (len, capacity) = (values.len(), values.capacity());
        // A vector's pointer is never null (dangling but aligned when it holds nothing).
        let ptr = NonNull::new(values.as_mut_ptr()).unwrap_or(NonNull::dangling());
        Store { ptr, len, keep: Keep::Vec { capacity } }
    }
}

impl<T: Plain> std::ops::Deref for Store<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` and `len` describe either a vector's initialised buffer, owned by
        // this store alone and never written since `Store::from` took it apart, or `len`
        // aligned values inside the bytes of an owner this store keeps alive (checked by
        // `Store::pinned`), which stay at the same address and unchanged while it lives
        // (`Pinned`; a file's bytes under the contract `Input::file` states). `T: Plain`
        // makes any such bytes values. The slice borrows `self`, so it cannot outlive either.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Plain> Drop for Store<T> {
    fn drop(&mut self) {
        if let Keep::Vec { capacity } = self.keep {
            // SAFETY: the parts `Store::from` took from a vector, untouched since, dropped
            // once (here).
            drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, capacity) });
        }
    }
}

impl<T: Plain> Clone for Store<T> {
    fn clone(&self) -> Store<T> {
        match &self.keep {
            Keep::Vec { .. } => Store::from(self.to_vec()),
            Keep::Pinned(owner) => {
                Store { ptr: self.ptr, len: self.len, keep: Keep::Pinned(Arc::clone(owner)) }
            }
        }
    }
}

impl<T: Plain> PartialEq for Store<T> {
    fn eq(&self, other: &Store<T>) -> bool {
        **self == **other
    }
}

impl<T: Plain + Eq> Eq for Store<T> {}

impl<T: Plain> Default for Store<T> {
    fn default() -> Store<T> {
        Store::from(Vec::new())
    }
}

impl<T: Plain> fmt::Debug for Store<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A column of unsigned integers in the narrowest width that holds them, read as `u32`: an
/// index stores a case's values and levels this way (a value of at most 255 in a byte).
#[derive(Clone, PartialEq, Eq)]
pub enum Ints {
    /// One byte each.
    U8(Store<u8>),
    /// Two bytes each.
    U16(Store<u16>),
    /// Four bytes each.
    U32(Store<u32>),
}

impl Ints {
    /// Entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            Ints::U8(s) => s[i].into(),
            Ints::U16(s) => s[i].into(),
            Ints::U32(s) => s[i],
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Ints::U8(s) => s.len(),
            Ints::U16(s) => s.len(),
            Ints::U32(s) => s.len(),
        }
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per entry.
    pub fn width(&self) -> usize {
        match self {
            Ints::U8(_) => 1,
            Ints::U16(_) => 2,
            Ints::U32(_) => 4,
        }
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// The entries as `u32`s: the column itself when it is one, else a widened copy.
    pub fn to_u32(&self) -> std::borrow::Cow<'_, [u32]> {
        match self {
            Ints::U32(s) => std::borrow::Cow::Borrowed(&s[..]),
            other => std::borrow::Cow::Owned(other.iter().collect()),
        }
    }
}

impl fmt::Debug for Ints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Bytes(Vec<u8>);

    impl Pinned for Bytes {
        fn pinned(&self) -> &[u8] {
            &self.0
        }
    }

    #[test]
    fn a_store_is_its_vector_and_gives_it_back() {
        let store = Store::from(vec![3u32, 1, 4, 1, 5]);
        assert_eq!((&store[..], store.is_pinned()), (&[3, 1, 4, 1, 5][..], false));
        let copy = store.clone();
        assert_eq!(store.into_vec(), vec![3, 1, 4, 1, 5]);
        assert_eq!(copy.len(), 5);
        assert!(Store::<u64>::default().is_empty());
    }

    #[test]
    fn pinned_stores_read_in_place_inside_their_owner_only() {
        let mut bytes = vec![0u8; 64];
        bytes[8..16].copy_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0]);
        let owner: Arc<dyn Pinned> = Arc::new(Bytes(bytes));
        let base = owner.pinned().as_ptr() as usize;
        // The allocator aligns a 64-byte buffer for u32 at least; skip the test if not.
        if base % 4 == 0 {
            let store = Store::<u32>::pinned(&owner, 8, 2).expect("inside and aligned");
            assert_eq!((&store[..], store.is_pinned()), (&[1, 2][..], true));
            assert_eq!(store.clone().into_vec(), vec![1, 2]);
            assert!(Store::<u32>::pinned(&owner, 9, 1).is_none(), "misaligned");
        }
        assert!(Store::<u32>::pinned(&owner, 60, 2).is_none(), "past the end");
        assert!(Store::<u32>::pinned(&owner, usize::MAX, 2).is_none(), "overflow");
        assert_eq!(&Store::<u32>::copied(owner.pinned(), 9, 1).expect("inside")[..], &[2 << 24]);
        assert!(Store::<u32>::copied(owner.pinned(), 62, 1).is_none());
    }

    #[test]
    fn ints_read_every_width_as_u32() {
        for ints in [
            Ints::U8(Store::from(vec![0u8, 255, 7])),
            Ints::U16(Store::from(vec![0u16, 255, 7])),
            Ints::U32(Store::from(vec![0u32, 255, 7])),
        ] {
            assert_eq!(ints.iter().collect::<Vec<_>>(), [0, 255, 7]);
            assert_eq!((ints.len(), ints.get(1), &ints.to_u32()[..]), (3, 255, &[0, 255, 7][..]));
        }
    }
}
