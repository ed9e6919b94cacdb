//! Entry point of the workshop view: mounts it and does nothing else.

fn main() {
    lousa_workshop::start();
}
