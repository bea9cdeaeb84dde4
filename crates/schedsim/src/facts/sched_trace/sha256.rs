//! SHA-256 (FIPS 180-4) as 64 lowercase hex digits: a replay names the trace it came
//! from by the digest of its bytes. RustCrypto's `sha2` does the hashing (with the CPU's
//! SHA instructions where it has them: x86-64's SHA-NI, detected at run time); our own
//! implementation took 44% of a trace import's time (issue 40).

use sha2::{Digest, Sha256};

/// The SHA-256 digest of `data`, as 64 lowercase hex digits.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// A digest as lowercase hex digits (the streamed import's hash, taken piece by piece).
pub(super) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::sha256_hex;

    /// The FIPS 180-4 examples (NIST's "SHA256.pdf" and "SHA2_Additional.pdf"), and the
    /// padding boundaries at 55, 56 and 64 bytes.
    #[test]
    fn fips_vectors() {
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(
            sha256_hex(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(
            sha256_hex(&vec![b'a'; 1_000_000]),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
        assert_eq!(sha256_hex(&[0u8; 55]), "02779466cdec163811d078815c633f21901413081449002f24aa3e80f0b88ef7");
        assert_eq!(sha256_hex(&[0u8; 56]), "d4817aa5497628e7c77e6b606107042bbba3130888c5f47a375e6179be789fbb");
        assert_eq!(sha256_hex(&[0u8; 64]), "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b");
    }
}
