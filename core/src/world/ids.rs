//! Typed ids for the agenda's events and the world's methods: a client, an
//! attempt, an instance and an acquirer call are all numbered from 0, so
//! plain `u32`s could be swapped without a compiler noticing. Stored state
//! and the trace keep plain numbers (`.0`); `ix` indexes the world's lists.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(pub(crate) u32);

        impl $name {
            /// The id as an index into the world's list of them.
            #[inline(always)]
            pub(crate) fn ix(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A client, as numbered in the scenario.
    ClientId
);
id!(
    /// An attempt (one request a client sends), in the order sent.
    AttemptId
);
id!(
    /// A service instance, as numbered in the scenario.
    InstanceId
);
id!(
    /// A call to the acquirer, in the order made.
    CallId
);
