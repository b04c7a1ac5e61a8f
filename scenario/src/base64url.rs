//! Base64url (RFC 4648, section 5) without padding: how a link carries a
//! small gzipped recording (`rec`), in characters a URL keeps as they are.
//! Decoding also takes padding and standard base64's `+` and `/`, which a
//! mail client or a hand edit may bring in.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `bytes` as base64url, without padding.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        // Three bytes make four characters; one byte two, two bytes three.
        for k in 0..chunk.len() + 1 {
            out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
        }
    }
    out
}

/// The bytes a base64url text stands for, or the first character that is
/// not base64.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim().trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in text.chars().enumerate() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '-' | '+' => 62,
            '_' | '/' => 63,
            _ => return Err(format!("character {} ('{c}') is not base64url", i + 1)),
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if text.len() % 4 == 1 {
        return Err("its length is not one base64 can have (cut short?)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rfc_4648_examples() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
        assert_eq!(encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(decode("+/8=").unwrap(), [0xfb, 0xff]);
        assert_eq!(
            decode("Zm9v!").unwrap_err(),
            "character 5 ('!') is not base64url"
        );
        assert!(decode("Zm9vY").is_err());
    }

    proptest! {
        #[test]
        fn round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let coded = encode(&bytes);
            prop_assert!(coded.bytes().all(|c| ALPHABET.contains(&c)));
            prop_assert_eq!(decode(&coded).unwrap(), bytes);
        }
    }
}
