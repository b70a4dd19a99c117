from django.urls import path

from .views import comparison, estimates, summary_experiment, tables

app_name = "findings"

urlpatterns = [
    path("studies/<id:study_id>/statistics/", tables.statistics, name="statistics"),
    path("studies/<id:study_id>/statistics/table1.csv", tables.table1_csv, name="table1_csv"),
    path("studies/<id:study_id>/statistics/figure3.csv", tables.figure3_csv, name="figure3_csv"),
    path("studies/<id:study_id>/statistics/shares/", estimates.shares, name="shares"),
    path("studies/<id:study_id>/statistics/shares.csv", estimates.shares_csv, name="shares_csv"),
    # Table 1 over every source, for admins
    path("screening/report/", tables.screening_report, name="screening_report"),
    path("studies/<id:study_id>/compare/", comparison.comparison, name="comparison"),
    path("studies/<id:study_id>/compare.csv", comparison.comparison_csv, name="comparison_csv"),
    path("studies/<id:study_id>/compare/baseline/", comparison.baseline, name="baseline"),
    path("studies/<id:study_id>/compare/card/", comparison.add_to_card, name="comparison_card"),
    path("studies/<id:study_id>/compare/subsets/", comparison.subset_define, name="subset_define"),
    path("studies/<id:study_id>/summary-experiment/", summary_experiment.summary_experiment,
         name="summary_experiment"),
]
