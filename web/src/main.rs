//! Entry point of the page: mounts the app and does nothing else.

fn main() {
    lousa_web::start();
}
