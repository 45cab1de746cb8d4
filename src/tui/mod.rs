pub mod highlight;
pub mod markdown;
