//! Permutations of numbered things, as the explorer's renamings use them:
//! a permutation is `to`, where item `i` goes to place `to[i]`.

/// `list` with item `i` moved to `to[i]`.
pub(crate) fn permuted<T>(list: Vec<T>, to: &[u32]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = list.iter().map(|_| None).collect();
    for (i, item) in list.into_iter().enumerate() {
        slots[to[i] as usize] = Some(item);
    }
    slots
        .into_iter()
        .map(|x| x.expect("a permutation"))
        .collect()
}

/// The permutation that puts `order[j]` at place `j`.
pub(crate) fn placing(order: &[u32]) -> Vec<u32> {
    let mut to = vec![0u32; order.len()];
    for (j, &i) in order.iter().enumerate() {
        to[i as usize] = j as u32;
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_goes_where_its_permutation_says() {
        let to = placing(&[2, 0, 1]);
        assert_eq!(to, [1, 2, 0]);
        assert_eq!(permuted(vec!['a', 'b', 'c'], &to), ['c', 'a', 'b']);
    }
}
