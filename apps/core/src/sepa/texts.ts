import { minorToDecimal, type SepaLanguage, shortDate } from '@paywire/contracts';
import { twoDigits } from '../clock/calendar.ts';

/** What a pre-notification tells the shopper: amount, collection date, mandate and creditor. */
export interface PreNotification {
  amountMinor: number;
  currency: string;
  collectionDate: Date;
  mandateId: string;
  ibanLastFour: string;
}

/** The creditor named in the texts: the service collects on the merchant's behalf. */
export const creditorName = 'Paywire';

/**
 * One language's texts. Pre-notifications are templates with the original's placeholders (${AMOUNT},
 * ${MANDATEID}, ${IBAN_PUBLIC_INFO}) and ours (${CURRENCY}, ${COLLECTION_DATE}): without a transaction the
 * template itself is the answer, as the original's Tools API gives it. Mandates are the EPC core mandate
 * wording with the creditor's name.
 */
interface SepaTexts {
  preNotification: string;
  mandate: string;
  /** How the collection date is written: the English dd-Mon-yy, or day, month, year with this separator. */
  dateSeparator?: string;
  /** English and Maltese write 10.50; every other language 10,50. */
  decimalPoint?: true;
}

const C = creditorName;

const texts: Record<SepaLanguage, SepaTexts> = {
  en: {
    preNotification: `We will debit \${CURRENCY} \${AMOUNT} from your account ending in \${IBAN_PUBLIC_INFO} on or after \${COLLECTION_DATE} under SEPA Direct Debit mandate \${MANDATEID} (creditor: ${C}).`,
    mandate: `By signing this mandate form, you authorise (A) ${C} to send instructions to your bank to debit your account and (B) your bank to debit your account in accordance with the instructions from ${C}. As part of your rights, you are entitled to a refund from your bank under the terms and conditions of your agreement with your bank. A refund must be claimed within 8 weeks starting from the date on which your account was debited.`,
    decimalPoint: true,
  },
  bg: {
    preNotification: `Ще изтеглим \${AMOUNT} \${CURRENCY} от сметката Ви, завършваща на \${IBAN_PUBLIC_INFO}, на или след \${COLLECTION_DATE} по мандат за директен дебит SEPA \${MANDATEID} (кредитор: ${C}).`,
    mandate: `С подписването на този мандат Вие упълномощавате (А) ${C} да изпраща нареждания до Вашата банка за задължаване на сметката Ви и (Б) Вашата банка да задължи сметката Ви в съответствие с нарежданията на ${C}. Като част от правата си имате право на възстановяване на сума от Вашата банка съгласно условията на договора Ви с нея. Искане за възстановяване трябва да бъде направено в срок от 8 седмици от датата, на която сметката Ви е била задължена.`,
    dateSeparator: '.',
  },
  cs: {
    preNotification: `Dne \${COLLECTION_DATE} nebo později stáhneme \${AMOUNT} \${CURRENCY} z Vašeho účtu končícího na \${IBAN_PUBLIC_INFO} na základě mandátu k inkasu SEPA \${MANDATEID} (věřitel: ${C}).`,
    mandate: `Podpisem tohoto mandátu zmocňujete (A) ${C} k zasílání pokynů Vaší bance k zatížení Vašeho účtu a (B) Vaši banku k zatížení Vašeho účtu v souladu s pokyny ${C}. Součástí Vašich práv je nárok na vrácení peněz od Vaší banky podle podmínek Vaší smlouvy s ní. O vrácení je nutné požádat do 8 týdnů ode dne, kdy byl Váš účet zatížen.`,
    dateSeparator: '.',
  },
  da: {
    preNotification: `Vi trækker \${AMOUNT} \${CURRENCY} fra din konto, der slutter med \${IBAN_PUBLIC_INFO}, den \${COLLECTION_DATE} eller senere i henhold til SEPA-betalingsaftale \${MANDATEID} (kreditor: ${C}).`,
    mandate: `Ved at underskrive denne betalingsaftale giver du (A) ${C} tilladelse til at sende instrukser til din bank om at trække beløb fra din konto og (B) din bank tilladelse til at trække beløb fra din konto i henhold til instrukserne fra ${C}. Som en del af dine rettigheder har du krav på tilbagebetaling fra din bank i henhold til vilkårene i din aftale med banken. Krav om tilbagebetaling skal fremsættes inden for 8 uger fra den dato, hvor beløbet blev trukket fra din konto.`,
    dateSeparator: '-',
  },
  de: {
    preNotification: `Wir ziehen am oder nach dem \${COLLECTION_DATE} \${AMOUNT} \${CURRENCY} von Ihrem Konto mit der Endung \${IBAN_PUBLIC_INFO} per SEPA-Lastschrift ein (Mandatsreferenz \${MANDATEID}, Gläubiger: ${C}).`,
    mandate: `Ich ermächtige ${C}, Zahlungen von meinem Konto mittels Lastschrift einzuziehen. Zugleich weise ich mein Kreditinstitut an, die von ${C} auf mein Konto gezogenen Lastschriften einzulösen. Hinweis: Ich kann innerhalb von acht Wochen, beginnend mit dem Belastungsdatum, die Erstattung des belasteten Betrages verlangen. Es gelten dabei die mit meinem Kreditinstitut vereinbarten Bedingungen.`,
    dateSeparator: '.',
  },
  el: {
    preNotification: `Θα χρεώσουμε \${AMOUNT} \${CURRENCY} στον λογαριασμό σας που λήγει σε \${IBAN_PUBLIC_INFO} στις \${COLLECTION_DATE} ή αργότερα, βάσει της εντολής άμεσης χρέωσης SEPA \${MANDATEID} (δικαιούχος: ${C}).`,
    mandate: `Υπογράφοντας την παρούσα εντολή, εξουσιοδοτείτε (Α) την ${C} να αποστέλλει οδηγίες στην τράπεζά σας για τη χρέωση του λογαριασμού σας και (Β) την τράπεζά σας να χρεώνει τον λογαριασμό σας σύμφωνα με τις οδηγίες της ${C}. Στο πλαίσιο των δικαιωμάτων σας, δικαιούστε επιστροφή χρημάτων από την τράπεζά σας σύμφωνα με τους όρους της σύμβασής σας με αυτήν. Η επιστροφή πρέπει να ζητηθεί εντός 8 εβδομάδων από την ημερομηνία χρέωσης του λογαριασμού σας.`,
    dateSeparator: '/',
  },
  es: {
    preNotification: `Cargaremos \${AMOUNT} \${CURRENCY} en su cuenta terminada en \${IBAN_PUBLIC_INFO} a partir del \${COLLECTION_DATE}, según la orden de domiciliación SEPA \${MANDATEID} (acreedor: ${C}).`,
    mandate: `Mediante la firma de esta orden de domiciliación, usted autoriza (A) a ${C} a enviar instrucciones a su entidad para adeudar su cuenta y (B) a su entidad para efectuar los adeudos en su cuenta siguiendo las instrucciones de ${C}. Como parte de sus derechos, usted está legitimado al reembolso por su entidad en los términos y condiciones del contrato suscrito con la misma. La solicitud de reembolso deberá efectuarse dentro de las 8 semanas que siguen a la fecha de adeudo en cuenta.`,
    dateSeparator: '/',
  },
  et: {
    preNotification: `Debiteerime \${COLLECTION_DATE} või hiljem teie kontolt, mille lõpp on \${IBAN_PUBLIC_INFO}, \${AMOUNT} \${CURRENCY} SEPA otsedebiti volituse \${MANDATEID} alusel (võlausaldaja: ${C}).`,
    mandate: `Selle volituse allkirjastamisega annate (A) ${C}-le loa saata teie pangale korraldusi teie konto debiteerimiseks ja (B) oma pangale loa debiteerida teie kontot vastavalt ${C} korraldustele. Teil on õigus saada oma pangalt raha tagasi vastavalt pangaga sõlmitud lepingu tingimustele. Tagasimakset tuleb taotleda 8 nädala jooksul alates konto debiteerimise kuupäevast.`,
    dateSeparator: '.',
  },
  fi: {
    preNotification: `Veloitamme \${AMOUNT} \${CURRENCY} tililtäsi, joka päättyy \${IBAN_PUBLIC_INFO}, \${COLLECTION_DATE} tai sen jälkeen SEPA-suoraveloitusvaltuutuksen \${MANDATEID} perusteella (velkoja: ${C}).`,
    mandate: `Allekirjoittamalla tämän valtuutuksen valtuutat (A) ${C}:n lähettämään pankillesi ohjeita tilisi veloittamiseksi ja (B) pankkisi veloittamaan tiliäsi ${C}:n ohjeiden mukaisesti. Sinulla on oikeus saada pankiltasi palautus pankkisi kanssa tekemäsi sopimuksen ehtojen mukaisesti. Palautusta on vaadittava 8 viikon kuluessa tilisi veloituspäivästä.`,
    dateSeparator: '.',
  },
  fr: {
    preNotification: `Nous prélèverons \${AMOUNT} \${CURRENCY} sur votre compte se terminant par \${IBAN_PUBLIC_INFO} à partir du \${COLLECTION_DATE}, au titre du mandat de prélèvement SEPA \${MANDATEID} (créancier : ${C}).`,
    mandate: `En signant ce formulaire de mandat, vous autorisez (A) ${C} à envoyer des instructions à votre banque pour débiter votre compte, et (B) votre banque à débiter votre compte conformément aux instructions de ${C}. Vous bénéficiez du droit d'être remboursé par votre banque selon les conditions décrites dans la convention que vous avez passée avec elle. Une demande de remboursement doit être présentée dans les 8 semaines suivant la date de débit de votre compte.`,
    dateSeparator: '/',
  },
  hu: {
    preNotification: `\${COLLECTION_DATE} napon vagy azt követően \${AMOUNT} \${CURRENCY} összeget terhelünk a(z) \${IBAN_PUBLIC_INFO} végű számlájára a(z) \${MANDATEID} SEPA beszedési megbízás alapján (kedvezményezett: ${C}).`,
    mandate: `E megbízás aláírásával Ön felhatalmazza (A) a(z) ${C} társaságot, hogy utasításokat küldjön bankjának számlája megterhelésére, és (B) bankját, hogy számláját a(z) ${C} utasításainak megfelelően megterhelje. Jogai részeként Ön jogosult a bankjától visszatérítést kérni a bankjával kötött szerződés feltételei szerint. A visszatérítést a számla megterhelésének napjától számított 8 héten belül kell kérni.`,
    dateSeparator: '.',
  },
  it: {
    preNotification: `Addebiteremo \${AMOUNT} \${CURRENCY} sul suo conto che termina con \${IBAN_PUBLIC_INFO} a partire dal \${COLLECTION_DATE}, in base al mandato di addebito diretto SEPA \${MANDATEID} (creditore: ${C}).`,
    mandate: `La sottoscrizione del presente mandato comporta (A) l'autorizzazione a ${C} a richiedere alla banca del debitore l'addebito del suo conto e (B) l'autorizzazione alla banca del debitore di procedere a tale addebito conformemente alle disposizioni impartite da ${C}. Il debitore ha diritto di essere rimborsato dalla propria banca secondo gli accordi ed alle condizioni che regolano il rapporto con quest'ultima. Se del caso, il rimborso deve essere richiesto nel termine di 8 settimane a decorrere dalla data di addebito in conto.`,
    dateSeparator: '/',
  },
  lt: {
    preNotification: `\${COLLECTION_DATE} arba vėliau nurašysime \${AMOUNT} \${CURRENCY} iš jūsų sąskaitos, kurios pabaiga \${IBAN_PUBLIC_INFO}, pagal SEPA tiesioginio debeto sutikimą \${MANDATEID} (gavėjas: ${C}).`,
    mandate: `Pasirašydami šį sutikimą, jūs įgaliojate (A) ${C} siųsti nurodymus jūsų bankui nurašyti lėšas iš jūsų sąskaitos ir (B) savo banką nurašyti lėšas iš jūsų sąskaitos pagal ${C} nurodymus. Pagal savo teises galite reikalauti, kad bankas grąžintų lėšas pagal jūsų sutarties su banku sąlygas. Reikalavimą grąžinti lėšas reikia pateikti per 8 savaites nuo lėšų nurašymo iš jūsų sąskaitos dienos.`,
    dateSeparator: '-',
  },
  lv: {
    preNotification: `\${COLLECTION_DATE} vai vēlāk mēs debetēsim \${AMOUNT} \${CURRENCY} no jūsu konta, kas beidzas ar \${IBAN_PUBLIC_INFO}, saskaņā ar SEPA tiešā debeta pilnvaru \${MANDATEID} (kreditors: ${C}).`,
    mandate: `Parakstot šo pilnvaru, jūs pilnvarojat (A) ${C} sūtīt jūsu bankai rīkojumus debetēt jūsu kontu un (B) savu banku debetēt jūsu kontu saskaņā ar ${C} rīkojumiem. Jums ir tiesības saņemt atmaksu no savas bankas saskaņā ar jūsu līguma ar banku noteikumiem. Atmaksa jāpieprasa 8 nedēļu laikā no dienas, kad jūsu konts tika debetēts.`,
    dateSeparator: '.',
  },
  mt: {
    preNotification: `Se niddebitaw \${CURRENCY} \${AMOUNT} mill-kont tiegħek li jispiċċa b'\${IBAN_PUBLIC_INFO} fi jew wara \${COLLECTION_DATE} taħt il-mandat tad-debitu dirett SEPA \${MANDATEID} (kreditur: ${C}).`,
    mandate: `Billi tiffirma din il-formola tal-mandat, inti tawtorizza (A) lil ${C} biex jibgħat struzzjonijiet lill-bank tiegħek biex jiddebita l-kont tiegħek u (B) lill-bank tiegħek biex jiddebita l-kont tiegħek skont l-istruzzjonijiet ta' ${C}. Bħala parti mid-drittijiet tiegħek, inti intitolat għal rimborż mill-bank tiegħek skont it-termini u l-kundizzjonijiet tal-ftehim tiegħek mal-bank. Ir-rimborż għandu jintalab fi żmien 8 ġimgħat mid-data li fiha l-kont tiegħek ġie ddebitat.`,
    dateSeparator: '/',
    decimalPoint: true,
  },
  nl: {
    preNotification: `Wij schrijven op of na \${COLLECTION_DATE} \${CURRENCY} \${AMOUNT} af van uw rekening eindigend op \${IBAN_PUBLIC_INFO} op basis van SEPA-incassomachtiging \${MANDATEID} (incassant: ${C}).`,
    mandate: `Door ondertekening van dit formulier geeft u toestemming aan (A) ${C} om doorlopende incasso-opdrachten te sturen naar uw bank om een bedrag van uw rekening af te schrijven en (B) uw bank om doorlopend een bedrag van uw rekening af te schrijven overeenkomstig de opdracht van ${C}. Als u het niet eens bent met deze afschrijving kunt u deze laten terugboeken. Neem hiervoor binnen 8 weken na afschrijving contact op met uw bank. Vraag uw bank naar de voorwaarden.`,
    dateSeparator: '-',
  },
  no: {
    preNotification: `Vi belaster \${AMOUNT} \${CURRENCY} fra kontoen din som slutter på \${IBAN_PUBLIC_INFO}, den \${COLLECTION_DATE} eller senere i henhold til SEPA-fullmakt \${MANDATEID} (kreditor: ${C}).`,
    mandate: `Ved å signere denne fullmakten gir du (A) ${C} tillatelse til å sende instruksjoner til banken din om å belaste kontoen din og (B) banken din tillatelse til å belaste kontoen din i henhold til instruksjonene fra ${C}. Som en del av rettighetene dine har du krav på tilbakebetaling fra banken din i henhold til vilkårene i avtalen med banken. Krav om tilbakebetaling må fremsettes innen 8 uker fra datoen kontoen din ble belastet.`,
    dateSeparator: '.',
  },
  pl: {
    preNotification: `W dniu \${COLLECTION_DATE} lub później obciążymy Twój rachunek kończący się na \${IBAN_PUBLIC_INFO} kwotą \${AMOUNT} \${CURRENCY} na podstawie upoważnienia do polecenia zapłaty SEPA \${MANDATEID} (wierzyciel: ${C}).`,
    mandate: `Podpisując niniejsze upoważnienie, upoważniasz (A) ${C} do wysyłania poleceń do Twojego banku w celu obciążenia Twojego rachunku oraz (B) Twój bank do obciążania Twojego rachunku zgodnie z poleceniami ${C}. W ramach przysługujących Ci praw możesz żądać od swojego banku zwrotu środków na warunkach określonych w umowie zawartej z bankiem. Żądanie zwrotu należy złożyć w terminie 8 tygodni od dnia obciążenia rachunku.`,
    dateSeparator: '.',
  },
  pt: {
    preNotification: `Debitaremos \${AMOUNT} \${CURRENCY} da sua conta terminada em \${IBAN_PUBLIC_INFO} a partir de \${COLLECTION_DATE}, ao abrigo da autorização de débito direto SEPA \${MANDATEID} (credor: ${C}).`,
    mandate: `Ao subscrever esta autorização, está a autorizar (A) a ${C} a enviar instruções ao seu banco para debitar a sua conta e (B) o seu banco a debitar a sua conta, de acordo com as instruções da ${C}. Os seus direitos incluem a possibilidade de exigir do seu banco o reembolso do montante debitado, nos termos e condições acordados com o seu banco. O reembolso deve ser solicitado até um prazo de oito semanas, a contar da data do débito na sua conta.`,
    dateSeparator: '/',
  },
  ro: {
    preNotification: `La data de \${COLLECTION_DATE} sau ulterior vom debita \${AMOUNT} \${CURRENCY} din contul dumneavoastră care se termină în \${IBAN_PUBLIC_INFO}, în baza mandatului de debitare directă SEPA \${MANDATEID} (creditor: ${C}).`,
    mandate: `Prin semnarea acestui mandat, autorizați (A) ${C} să trimită instrucțiuni băncii dumneavoastră pentru debitarea contului și (B) banca dumneavoastră să vă debiteze contul în conformitate cu instrucțiunile ${C}. Ca parte a drepturilor dumneavoastră, aveți dreptul la o rambursare de la banca dumneavoastră în condițiile contractului încheiat cu aceasta. Rambursarea trebuie solicitată în termen de 8 săptămâni de la data la care contul a fost debitat.`,
    dateSeparator: '.',
  },
  sk: {
    preNotification: `Dňa \${COLLECTION_DATE} alebo neskôr odpíšeme \${AMOUNT} \${CURRENCY} z Vášho účtu končiaceho na \${IBAN_PUBLIC_INFO} na základe mandátu na inkaso SEPA \${MANDATEID} (veriteľ: ${C}).`,
    mandate: `Podpísaním tohto mandátu splnomocňujete (A) ${C} na zasielanie pokynov Vašej banke na odpísanie súm z Vášho účtu a (B) Vašu banku na odpísanie súm z Vášho účtu v súlade s pokynmi ${C}. Súčasťou Vašich práv je nárok na vrátenie peňazí od Vašej banky podľa podmienok Vašej zmluvy s ňou. O vrátenie je potrebné požiadať do 8 týždňov odo dňa, keď bol Váš účet zaťažený.`,
    dateSeparator: '.',
  },
  sl: {
    preNotification: `Dne \${COLLECTION_DATE} ali pozneje bomo v breme vašega računa, ki se konča s \${IBAN_PUBLIC_INFO}, obračunali \${AMOUNT} \${CURRENCY} na podlagi soglasja za direktno obremenitev SEPA \${MANDATEID} (prejemnik plačila: ${C}).`,
    mandate: `S podpisom tega soglasja pooblaščate (A) ${C}, da pošilja navodila vaši banki za obremenitev vašega računa, in (B) vašo banko, da obremeni vaš račun v skladu z navodili ${C}. Med vašimi pravicami je tudi pravica do vračila s strani vaše banke v skladu s pogoji pogodbe, ki ste jo sklenili z njo. Zahtevo za vračilo morate vložiti v 8 tednih od datuma obremenitve vašega računa.`,
    dateSeparator: '.',
  },
  sv: {
    preNotification: `Vi drar \${AMOUNT} \${CURRENCY} från ditt konto som slutar på \${IBAN_PUBLIC_INFO} den \${COLLECTION_DATE} eller senare enligt SEPA-autogiromedgivande \${MANDATEID} (betalningsmottagare: ${C}).`,
    mandate: `Genom att underteckna detta medgivande ger du (A) ${C} tillåtelse att skicka instruktioner till din bank att debitera ditt konto och (B) din bank tillåtelse att debitera ditt konto i enlighet med instruktionerna från ${C}. Som en del av dina rättigheter har du rätt till återbetalning från din bank enligt villkoren i ditt avtal med banken. Krav på återbetalning måste framställas inom 8 veckor från den dag då ditt konto debiterades.`,
    dateSeparator: '-',
  },
};

function collectionDate(language: SepaTexts, date: Date): string {
  if (!language.dateSeparator) return shortDate(date);
  return [twoDigits(date.getUTCDate()), twoDigits(date.getUTCMonth() + 1), date.getUTCFullYear()].join(
    language.dateSeparator,
  );
}

/** A debit's pre-notification in one language, or the template when there is no debit to fill it with. */
export function preNotificationText(language: SepaLanguage, notification?: PreNotification): string {
  const entry = texts[language];
  if (!notification) return entry.preNotification;
  const amount = minorToDecimal(notification.amountMinor, notification.currency);
  const values: Record<string, string> = {
    AMOUNT: entry.decimalPoint ? amount : amount.replace('.', ','),
    CURRENCY: notification.currency,
    MANDATEID: notification.mandateId,
    IBAN_PUBLIC_INFO: notification.ibanLastFour,
    COLLECTION_DATE: collectionDate(entry, notification.collectionDate),
  };
  return entry.preNotification.replace(/\$\{([A-Z_]+)\}/g, (_, name: string) => values[name] ?? '');
}

/** The mandate text the shopper must see before submitting a debit. */
export function mandateText(language: SepaLanguage): string {
  return texts[language].mandate;
}
