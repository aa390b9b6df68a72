package guard

// Exfiltration ordered in German, Spanish, Dutch, Polish, Ukrainian and
// Vietnamese: a send / upload verb in the imperative, then the user's
// data (the conversation, passwords, keys, files), then a URL, an e-mail
// address or a credential file. The third-person forms facts use
// ("schickt", "stuurt", "wysyła", "надсилає") do not match; in Spanish
// and Vietnamese, where the imperative spells like the fact, the data
// named must be the conversation, passwords, keys or credentials, not a
// report or photos ("Envía el informe mensual a su jefa" passes).
//
// The Latin-script languages run on viewLower (the URL and the address
// keep their punctuation); Ukrainian runs on viewNative (the homoglyph
// folding would garble it), where a URL reads "https host …" and an
// address is announced by a word ("на адресу").

const (
	// exfilVerbs: imperative send / upload / copy verbs.
	exfilVerbs = `schick|schicke|sende|send|übertrage|uebertrage|übermittle|leite|kopiere|maile|poste|` + // de
		`envía|envia|envíe|manda|mande|sube|suba|reenvía|reenvia|copia|transfiere|comparte|publica|` + // es
		`stuur|verstuur|zend|upload|kopieer|deel|mail|post|` + // nl
		`wyślij|wyslij|wysyłaj|wysylaj|prześlij|przeslij|przesyłaj|przesylaj|wrzuć|wrzuc|skopiuj|udostępnij|udostepnij|` + // pl
		`gửi|chuyển|sao chép|chia sẻ|đăng` // vi
	// exfilData: the conversation, secrets, memory and files.
	exfilData = `chatverlauf|gesprächsverlauf|unterhaltung|gespräch|konversation|passwörter|passwort|kennwörter|zugangsdaten|schlüssel|geheimnisse|erinnerungen|gedächtnis|nachrichten|datei|dateien|` + // de
		`conversación|conversacion|conversaciones|chats?|mensajes|contraseñas|contrasenas|contraseña|credenciales|claves|secretos|memoria|archivos del usuario|datos del usuario|datos personales|` + // es
		`gesprek|gesprekken|chatgeschiedenis|wachtwoorden|wachtwoord|sleutels|inloggegevens|geheugen|berichten|bestanden|` + // nl
		`rozmowy|rozmowę|rozmowe|rozmów|rozmow|czat|hasła|hasla|hasło|haslo|klucze|dane logowania|pamięć|pamiec|wiadomości|wiadomosci|pliki|` + // pl
		`lịch sử trò chuyện|cuộc trò chuyện|mật khẩu|khóa|thông tin đăng nhập|bộ nhớ|tin nhắn|tệp|dữ liệu|` + // vi
		`tokens?|tokeny|api keys?` // all
	// exfilTarget: a URL, an e-mail address or a credential file.
	exfilTarget = `(?:https?|ftp|wss?)://|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|~/\.|\.ssh/|\bid_(?:rsa|ed25519|ecdsa)\b`
)

func langExfilRules(s *ruleSet) {
	const why = "looks like an instruction to send the conversation, files or secrets to a URL or address"
	s.add(viewLower, why,
		`(?:^|[^\pL])(?:`+exfilVerbs+`)(?:[^\pL][^\n]{0,80}?[^\pL]|[^\pL])(?:`+exfilData+`)(?:[^\pL][^\n]{0,120}?|[^\pL]?)(?:`+exfilTarget+`)`)
	// "Lade … hoch", "tải … lên": upload, where the bare verb also means
	// download ("lade … herunter", "tải xuống").
	s.add(viewLower, why,
		`(?:^|[^\pL])lade[^\pL][^\n]{0,80}?(?:`+exfilData+`)[^\n]{0,120}?(?:`+exfilTarget+`)[^\n]{0,60}?[^\pL]hoch(?:[^\pL]|$)`,
		`(?:^|[^\pL])tải[^\pL][^\n]{0,80}?(?:`+exfilData+`)[^\n]{0,120}?[^\pL]lên\s+(?:`+exfilTarget+`)`)
	// Ukrainian, on viewNative.
	s.add(viewNative, why,
		`(?:^| )(?:надішли|надішліть|надсилай|надсилайте|відправ|відправте|відправляй|перешли|пересилай|завантаж|завантажуй|передай|передавай|скопіюй)(?: [^ ]+){0,6}? (?:історію|розмову|розмови|чат|листування|паролі|пароль|ключі|токени|облікові дані|пам ять|повідомлення|файли|дані)(?: [^ ]+){0,8}? (?:https?|ftp|адресу|адреса|пошту|email|e mail)(?: |$)`)
}
