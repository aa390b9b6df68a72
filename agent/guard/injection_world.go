package guard

// Prompt injection in Russian, Arabic, Hindi and Turkish. Russian runs on
// viewNative (the homoglyph folding would garble it), the others on
// viewWords. Go's \b only knows ASCII letters, so every pattern anchors on
// the single spaces of the view instead: (?:^| ) … (?: |$). The patterns
// take imperative and second-person forms; the third-person forms facts
// use ("игнорирует уведомления", "yok sayıyor", "अनदेखा करते हैं") do
// not match.

func scriptRules(s *ruleSet) {
	// --- Russian ---
	const ruObj = `(?:инструкции|инструкций|указания|указаний|правила|правил|ограничения|ограничений|команды|промпт|установки|запреты|директивы)`
	s.add(viewNative, ignoreWhy,
		`(?:^| )(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|забудь|забудьте|отбрось|отбросьте|пренебреги|не обращай внимания на|не обращайте внимания на)(?: (?:все|всё|всех|свои|твои|ваши|предыдущие|прежние|прошлые|ранее|данные|полученные|системные|изначальные|эти|любые|эти))* `+ruObj+`(?: |$)`)
	s.add(viewNative, personaWh,
		`(?:^| )(?:теперь|отныне|с этого момента|с сегодняшнего дня|впредь|с этой минуты)(?: [^ ]+)?? ты(?: |$)`,
		`(?:^| )ты (?:теперь|больше не|отныне)(?: |$)`)
	s.add(viewNative, jailWhy,
		`(?:^| )(?:ассистент|ассистентом|ии|ai|бот|ботом|модель|отвечай|отвечаешь|отвечать|работай|ты)(?: [^ ]+){0,4}? без (?:каких либо |всяких |любых )?(?:ограничений|цензуры|фильтров|правил)(?: |$)`)
	s.add(viewNative, approvalWhy,
		`(?:^| )(?:никогда не|не)(?: [^ ]+)? (?:спрашивай|спрашивайте|проси|просите|запрашивай|запрашивайте|жди|ждите)(?: [^ ]+)? (?:разрешения|подтверждения|согласия|одобрения)(?: |$)`,
		`(?:^| )(?:выполняй|выполняйте|запускай|запускайте|делай|делайте|удаляй|удаляйте)(?: [^ ]+){0,4}? без (?:подтверждения|разрешения|спроса|согласия|вопросов)(?: |$)`)
	s.add(viewNative, hideWhy,
		`(?:^| )не (?:говори|говорите|сообщай|сообщайте|рассказывай|рассказывайте|показывай|показывайте|упоминай|упоминайте)(?: [^ ]+)? (?:пользователю|пользователям|юзеру)(?: |$)`)
	s.add(viewNative, leakWhy,
		`(?:^| )(?:покажи|покажите|выведи|выведите|раскрой|раскройте|повтори|повторите|напиши|напишите|распечатай)(?: [^ ]+){0,2}? (?:системный промпт|системные инструкции|системное сообщение|скрытые инструкции|свои инструкции|твои инструкции|свой промпт|твой промпт)(?: |$)`)

	// --- Arabic (diacritics are dropped before matching) ---
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:تجاهل|تجاهلي|تجاهلوا|انس|انسى|انسي|انسوا|اترك|تخط|تخطى|تخطي|أهمل|اهمل)(?: (?:جميع|كل|كافة))? (?:ال)?(?:تعليمات|تعليماتك|أوامر|اوامر|أوامرك|اوامرك|قواعد|قواعدك|إرشادات|ارشادات|إرشاداتك|توجيهات|توجيهاتك|قيود|قيودك)(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:أنت|انت) (?:الآن|الان|من الآن|من الان|منذ الآن)(?: |$)`,
		`(?:^| )(?:من الآن فصاعدا|من الان فصاعدا|من اليوم) (?:أنت|انت|ستكون|كن)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:بلا|بدون|دون) (?:أي |اي )?(?:قيود|حدود|رقابة|قواعد|فلترة|ضوابط)(?: |$)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:لا|ولا) (?:تطلب|تطلبي|تسأل|تسألي|تنتظر|تنتظري)(?: [^ ]+){0,2}? (?:ال)?(?:موافقة|إذن|اذن|تأكيد|تاكيد|سماح)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )(?:لا|ولا) (?:تخبر|تخبري|تقل|تقولي|تذكر|تذكري|تعلم|تبلغ|تبلغي)(?: [^ ]+)? (?:المستخدم|للمستخدم|المستخدمين)(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:اكشف|اكشفي|اعرض|اعرضي|أظهر|اظهر|اطبع|كرر|أعطني|اعطني)(?: [^ ]+){0,2}? (?:موجه النظام|تعليمات النظام|رسالة النظام|تعليماتك|موجهك)(?: |$)`)
	s.add(viewWords, authorWhy, `(?:^| )(?:أطع|اطع|أطيعي|اطيعي)(?: |$)`)

	// --- Hindi ---
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:पिछले|पहले के|सभी|पूर्व|अपने|सारे|सिस्टम के)(?: [^ ]+){0,2}? (?:निर्देशों|निर्देश|नियमों|नियम|आदेशों|आदेश|हिदायतों)(?: [^ ]+)? (?:को )?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल|भुला)(?: [^ ]+)? ?(?:करो|करें|कर दो|करिए|जाओ|जाएं|दो)(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:अब से|आज से|इस क्षण से|अभी से)(?: [^ ]+)? (?:तुम|आप|तू)(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:बिना|बगैर)(?: किसी)? (?:प्रतिबंध|प्रतिबंधों|रोक|रोक टोक|सीमा|सीमाओं|पाबंदी|पाबंदियों|नियमों|सेंसर)(?: |$)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:कभी|कभी भी)(?: [^ ]+){0,2}? (?:अनुमति|मंजूरी|मंज़ूरी|स्वीकृति|पुष्टि|इजाज़त|इजाजत)(?: [^ ]+)? (?:मत|न) (?:माँगो|मांगो|माँगना|मांगना|लो|पूछो|लेना)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )(?:उपयोगकर्ता|यूज़र|यूजर) को(?: [^ ]+){0,6}? (?:मत|न) (?:बताना|बताओ|बताएं|बताइए|दिखाना|दिखाओ)(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )(?:सिस्टम प्रॉम्प्ट|सिस्टम प्रोम्प्ट|सिस्टम निर्देश)(?: [^ ]+){0,6}? (?:दिखाओ|दिखाएं|दिखाइए|बताओ|बताएं|प्रिंट करो|लिखो|दोहराओ)(?: |$)`)

	// --- Turkish (dotless ı and dotted i both occur: lower-casing
	// "TALİMATLARI" gives "talimatlari") ---
	s.add(viewWords, ignoreWhy,
		`(?:^| )(?:önceki|onceki|önceden|tüm|tum|bütün|butun|sistem|güvenlik|guvenlik|verilen)(?: [^ ]+){0,2}? (?:talimatlar[ıi]|talimatlar[ıi]n[ıi]|kurallar[ıi]|kurallar[ıi]n[ıi]|yönergeleri|yonergeleri|komutlar[ıi])(?: [^ ]+)? (?:yok say|görmezden gel|gormezden gel|unut|dikkate alma|göz ardı et|goz ardi et)(?: |$)`)
	s.add(viewWords, personaWh,
		`(?:^| )(?:artık|artik|bundan sonra|şu andan itibaren|su andan itibaren|bugünden itibaren)(?: [^ ]+){0,4}? (?:asistan|yapay zeka|bot|model|ai)[^ ]*s[ıiuü]n(?: |$)`)
	s.add(viewWords, jailWhy,
		`(?:^| )(?:k[ıi]s[ıi]tlamas[ıi] olmayan|k[ıi]s[ıi]tlamas[ıi]z|s[ıi]n[ıi]rs[ıi]z|sansürsüz|sansursuz|filtresiz|kurals[ıi]z) (?:bir )?(?:asistan|yapay zeka|ai|bot|model)`)
	s.add(viewWords, approvalWhy,
		`(?:^| )(?:asla|hiç|hic|hiçbir zaman|hicbir zaman)(?: [^ ]+){0,2}? (?:onay|izin|teyit|onay[ıi]n[ıi]|iznini)(?: [^ ]+)? (?:isteme|sorma|bekleme|alma)(?: |$)`)
	s.add(viewWords, hideWhy,
		`(?:^| )(?:kullan[ıi]c[ıi]ya|kullan[ıi]c[ıi]lara)(?: [^ ]+){0,3}? (?:bahsetme|söyleme|soyleme|anlatma|gösterme|gosterme|bildirme)(?: |$)`)
	s.add(viewWords, leakWhy,
		`(?:^| )sistem (?:istemini|istemi|komutunu|talimatlar[ıi]n[ıi]|promptunu|prompt unu)(?: [^ ]+){0,2}? (?:göster|goster|yaz|yazd[ıi]r|söyle|soyle|tekrarla|paylaş|paylas|ver)(?: |$)`)
}
