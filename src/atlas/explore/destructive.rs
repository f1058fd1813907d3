//! The guard against actions that look destructive: explore does not click them unless
//! `--allow-destructive`.

/// What makes an action look destructive, in the languages apps are most often written in:
/// each a word's start (`delet`: Delete, Deleted), a phrase whose last word is such a start
/// (`log out`), a whole word (`drop=`: not Dropdown), or, in scripts written without spaces,
/// a piece of the name (`削除`).
const DESTRUCTIVE: &[&str] = &[
    // English
    "delet",
    "remov",
    "logout",
    "log out",
    "log off",
    "logoff",
    "sign out",
    "signout",
    "sign off",
    "pay",
    "purchas",
    "buy",
    "unsubscrib",
    "destroy",
    "erase",
    "deactivat",
    "close account",
    "close my account",
    "reset",
    "drop=",
    "trash",
    "discard",
    "wipe",
    "terminat",
    "cancel subscription",
    "cancel account",
    // German
    "lösch",
    "losch",
    "entfern",
    "abmeld",
    "ausloggen",
    "kaufen",
    "kauf=",
    "bezahl",
    "zahlungspflichtig",
    "kostenpflichtig",
    "kündig",
    "zurücksetz",
    "deaktivier",
    "konto schließen",
    "verwerfen",
    // French
    "supprim",
    "effac",
    "retir",
    "déconnex",
    "déconnect",
    "deconnex",
    "deconnect",
    "payer",
    "achet",
    "achat",
    "désabonn",
    "désinscri",
    "réinitialis",
    "désactiv",
    "fermer le compte",
    // Spanish, Portuguese, Italian
    "elimin",
    "borrar",
    "quitar",
    "cerrar sesión",
    "cerrar sesion",
    "pagar",
    "comprar",
    "darse de baja",
    "restablec",
    "desactiv",
    "cancelar suscripción",
    "exclu",
    "apagar",
    "sair=",
    "cancelar inscrição",
    "redefin",
    "desativ",
    "cancell",
    "rimuov",
    "esci=",
    "disconnett",
    "paga=",
    "pagare",
    "acquist",
    "compra=",
    "disiscri",
    "reimpost",
    "disattiv",
    // Dutch, Polish, Swedish, Danish, Norwegian
    "verwijder",
    "wissen",
    "uitlog",
    "afmeld",
    "betal",
    "kopen",
    "koop=",
    "opzeg",
    "deactiveer",
    "usuń",
    "usun",
    "wyloguj",
    "zapłać",
    "zaplac",
    "kup=",
    "radera",
    "ta bort",
    "logga ut",
    "köp",
    "slet",
    "log ud",
    "logg ut",
    "kjøp",
    // Russian, Ukrainian, Turkish
    "удал",
    "выйти",
    "выход",
    "оплат",
    "купить",
    "отпис",
    "видал",
    "вийти",
    "sil=",
    "silin",
    "çıkış",
    "satın al",
    "öde=",
    // Japanese, Chinese, Korean (no spaces between words)
    "削除",
    "ログアウト",
    "購入",
    "支払",
    "退会",
    "删除",
    "刪除",
    "退出",
    "注销",
    "註銷",
    "购买",
    "購買",
    "支付",
    "삭제",
    "로그아웃",
    "구매",
    "결제",
    "탈퇴",
    "🗑",
];

/// Whether an element's name looks destructive ([`DESTRUCTIVE`]).
pub(crate) fn is_destructive(name: &str) -> bool {
    let lower = name.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    DESTRUCTIVE.iter().any(|entry| {
        let (entry, whole) = match entry.strip_suffix('=') {
            Some(e) => (e, true),
            None => (*entry, false),
        };
        if entry
            .chars()
            .any(|c| is_unspaced(c) || !(c.is_alphanumeric() || c == ' '))
        {
            return lower.contains(entry);
        }
        let parts: Vec<&str> = entry.split(' ').collect();
        words.windows(parts.len()).any(|w| {
            let last = parts.len() - 1;
            w.iter().zip(&parts).enumerate().all(|(i, (word, part))| {
                if i < last || whole {
                    word == part
                } else {
                    word.starts_with(part)
                }
            })
        })
    })
}

/// Whether `c` is of a script written without spaces between words (Japanese, Chinese, Korean).
fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_names() {
        assert!(is_destructive("Delete account"));
        assert!(is_destructive("Sign out"));
        assert!(!is_destructive("About us"));
    }

    /// The guard reads the languages apps are written in, not English alone (attack 31, G19:
    /// explore clicked "Konto löschen", "Supprimer", "Eliminar", "削除" and "Abmelden").
    #[test]
    fn destructive_names_in_other_languages() {
        for name in [
            "Konto löschen",
            "Abmelden",
            "Jetzt kaufen",
            "Zahlungspflichtig bestellen",
            "Supprimer le compte",
            "Se déconnecter",
            "Eliminar",
            "Cerrar sesión",
            "Excluir conta",
            "Elimina",
            "Verwijderen",
            "Wyloguj",
            "Удалить",
            "アカウントを削除",
            "删除",
            "로그아웃",
            "🗑",
            "Deleted items: remove all",
        ] {
            assert!(is_destructive(name), "{name}");
        }
        for name in [
            "Dropdown menu",
            "Display",
            "Pagina 2",
            "Comprobar",
            "Kaufhaus",
            "Über uns",
            "Accueil",
            "Home",
            "Preset",
        ] {
            assert!(!is_destructive(name), "{name}");
        }
    }
}
