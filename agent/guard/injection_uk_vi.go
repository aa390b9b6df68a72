package guard

// Prompt injection in Ukrainian (on viewNative, like Russian: the
// homoglyph folding would garble it) and Vietnamese (on viewWords). Both
// anchor on the view's spaces: (?:^| ) … (?: |$).
//
// Ukrainian imperatives ("ігноруй", "не питай", "покажи") differ from the
// third person facts use ("ігнорує", "питає"). Vietnamese verbs do not
// inflect, so "Bỏ qua thông báo" (skips notifications) and "Bỏ qua tất cả
// các hướng dẫn trước đó" differ only in their object: the patterns need
// instructions or rules as the object, with "all", "previous", "the
// system's" or "your"; a negation before asking for permission; "bạn"
// (you) for a persona.

func ukrainianVietnameseRules(s *ruleSet) {
	// --- Ukrainian ---
	const ukObj = `(?:інструкції|інструкцій|вказівки|вказівок|правила|правил|обмеження|обмежень|команди|промпт|настанови|настанов|директиви|заборони)`
	s.add(viewNative, ignoreWhy,
		`(?:^| )(?:ігноруй|ігноруйте|проігноруй|проігноруйте|забудь|забудьте|відкинь|відкиньте|нехтуй|знехтуй|не зважай на|не зважайте на)(?: (?:усі|всі|всіх|усіх|свої|твої|ваші|попередні|попередніх|колишні|минулі|надані|отримані|системні|початкові|ці|будь які|про))* `+ukObj+`(?: |$)`)
	s.add(viewNative, personaWh,
		`(?:^| )(?:відтепер|віднині|від сьогодні|з цього моменту|з цієї хвилини|надалі|тепер)(?: [^ ]+)?? ти(?: |$)`,
		`(?:^| )ти (?:тепер|більше не|відтепер|віднині)(?: |$)`)
	s.add(viewNative, jailWhy,
		`(?:^| )(?:асистент|асистентом|помічник|помічником|ші|ai|бот|ботом|модель|відповідай|відповідайте|працюй|ти)(?: [^ ]+){0,4}? (?:без|не маєш) (?:жодних |будь яких |усяких |всяких )?(?:обмежень|цензури|фільтрів|правил)(?: |$)`)
	s.add(viewNative, approvalWhy,
		`(?:^| )(?:ніколи )?не (?:питай|питайте|проси|просіть|запитуй|запитуйте|чекай|чекайте)(?: [^ ]+){0,3}? (?:дозволу|дозвіл|підтвердження|згоди|схвалення)(?: |$)`,
		`(?:^| )(?:виконуй|виконуйте|виконай|запускай|запускайте|видаляй|видаляйте|встановлюй|роби|робіть)(?: [^ ]+){0,4}? без (?:підтвердження|дозволу|згоди|запиту|питань|попиту)(?: |$)`)
	s.add(viewNative, hideWhy,
		`(?:^| )(?:нічого )?не (?:кажи|кажіть|говори|говоріть|повідомляй|повідомляйте|розповідай|розповідайте|показуй|згадуй)(?: [^ ]+)? (?:користувачеві|користувачу|користувачам)(?: |$)`,
		`(?:^| )(?:приховай|приховуй|сховай|приховайте)(?: [^ ]+){0,3}? від (?:користувача|користувачів)(?: |$)`)
	s.add(viewNative, leakWhy,
		`(?:^| )(?:покажи|покажіть|виведи|виведіть|розкрий|розкрийте|повтори|повторіть|надрукуй|напиши|напишіть)(?: [^ ]+){0,2}? (?:системний промпт|системні інструкції|системне повідомлення|приховані інструкції|свої інструкції|твої інструкції|свій промпт|твій промпт)(?: |$)`)
	s.add(viewNative, authorWhy,
		`(?:^| )(?:слухайся|слухай|виконуй|дотримуйся) (?:лише|тільки|виключно)(?: |$)`)

	// --- Vietnamese ---
	const (
		viVerb = `(?:bỏ qua|phớt lờ|lờ đi|quên|quên đi|gạt bỏ|bỏ|không tuân theo|đừng tuân theo|đừng làm theo|không làm theo)`
		viObj  = `(?:hướng dẫn|chỉ dẫn|chỉ thị|quy tắc|nguyên tắc|mệnh lệnh|lệnh|hạn chế|giới hạn|quy định|luật lệ|ràng buộc|lời nhắc)`
	)
	s.add(viewWords, ignoreWhy,
		// "… tất cả / mọi / hết (các) hướng dẫn", "… các quy tắc trước
		// đó / an toàn / của bạn / mà … đặt ra".
		`(?:^| )`+viVerb+`(?: hết)? (?:tất cả|toàn bộ|mọi|hết)(?: (?:các|những))? `+viObj+`(?: |$)`,
		`(?:^| )`+viVerb+`(?: (?:các|những))? `+viObj+`(?: [^ ]+){0,2}? (?:trước|trước đó|trước đây|cũ|ban đầu|hệ thống|an toàn|bảo mật|của bạn|mà)(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:kể )?từ (?:bây giờ|giờ|nay|hôm nay|lúc này|giờ phút này)(?: trở đi| về sau)? (?:bạn|mày|cậu) (?:là|sẽ là|đóng vai|hãy|phải|không còn)(?: |$)`,
		`(?:^| )(?:bạn|mày) (?:bây giờ|giờ|từ giờ|nay|giờ đây) (?:là|đã là|sẽ là)(?: |$)`,
		`(?:^| )bạn (?:không còn là|hãy đóng vai|hãy giả vờ là|hãy nhập vai)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:trợ lý|bot|ai|mô hình|bạn|trả lời|phản hồi|hoạt động)(?: [^ ]+){0,4}? (?:không|không có|không còn|chẳng có|mà không có)(?: bất kỳ| bất cứ| một| mọi)? (?:giới hạn|hạn chế|bộ lọc|kiểm duyệt|quy tắc|ràng buộc)(?: |$)`)
	const viNeg = `(?:đừng|không được|chớ|không bao giờ|đừng bao giờ|không cần)`
	s.add(viewWords, approvalWhy,
		// The action must be the assistant's: commands, files, the user.
		`(?:^| )`+viNeg+`(?: [^ ]+){0,4}? (?:xin phép|xác nhận|sự cho phép|sự đồng ý|phê duyệt)(?: [^ ]+){0,6}? (?:người dùng|lệnh|tệp|chạy|xóa|thực hiện|cài đặt)(?: |$)`,
		`(?:^| )`+viNeg+`(?: [^ ]+){0,2}? (?:hỏi|xin|chờ|đợi)(?: ý kiến)? (?:người dùng)(?: [^ ]+){0,2}? (?:xin phép|xác nhận|cho phép|đồng ý)(?: |$)`,
		`(?:^| )(?:thực hiện|chạy|xóa|cài đặt)(?: [^ ]+){0,5}? (?:mà )?không (?:cần )?(?:xác nhận|xin phép|hỏi ý kiến|phê duyệt)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )(?:đừng|không được|chớ|không bao giờ|đừng bao giờ) (?:nói|kể|cho|báo|tiết lộ|thông báo|để)(?: [^ ]+){0,2}? người dùng(?: |$)`,
		`(?:^| )(?:giấu|che giấu|giữ bí mật)(?: [^ ]+){0,4}? (?:khỏi|với) người dùng(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:hiển thị|hiện|cho xem|in ra|tiết lộ|lặp lại|cho tôi xem|cho biết|đưa ra)(?: [^ ]+){0,3}? (?:lời nhắc hệ thống|prompt hệ thống|chỉ dẫn hệ thống|hướng dẫn hệ thống|hướng dẫn ẩn|chỉ dẫn ẩn|system prompt)(?: |$)`)
	s.add(viewWords, authorWhy,
		`(?:^| )(?:chỉ|hãy chỉ) (?:tuân theo|làm theo|nghe theo|vâng lời)(?: [^ ]+){0,2}? (?:ghi chú|mục này|bộ nhớ|tôi)(?: |$)`)
}
